# Image used by docker-build, deploy, build-installer and release: tagged
# with the build's VERSION (below), the tag the chart's image defaults to.
IMAGE_REPO ?= nodeslo-controller
IMG ?= $(IMAGE_REPO):$(VERSION)

# Kubernetes and etcd versions of the control plane the tests run against.
ENVTEST_K8S_VERSION ?= 1.37.2
ENVTEST_ETCD_VERSION ?= 3.6.16

CONTAINER_TOOL ?= docker
# The offline build and make test-image use podman: it runs as root without
# a daemon, and `podman import` makes the offline base images.
OFFLINE_CONTAINER_TOOL ?= podman

SHELL = /usr/bin/env bash -o pipefail
.SHELLFLAGS = -ec

# The version every artifact of a build carries: the binaries (through the
# linker), the chart, the image tag and the krew manifest. hack/version.sh
# documents its forms (v0.3.0, v0.3.0-4-g1a2b3c4[-dirty], v0.0.0-dev);
# `make release VERSION=v0.3.0` sets it. REVISION is the full commit.
VERSION ?= $(shell hack/version.sh)
REVISION ?= $(shell hack/version.sh revision)
VERSION_PACKAGE = github.com/nodeslo/nodeslo-controller/internal/version
LDFLAGS = -s -w -X $(VERSION_PACKAGE).version=$(VERSION) -X $(VERSION_PACKAGE).revision=$(REVISION)

# One build command for the three binaries, shared by `make build`, `make release`
# and the Dockerfile (which passes VERSION and REVISION as build arguments).
GO_BUILD = CGO_ENABLED=0 go build -trimpath -ldflags="$(LDFLAGS)"

# Every go command of this Makefile builds as GO_BUILD does (CGO off,
# -trimpath), but for the race detector's, which needs cgo and compiles
# everything apart anyway: vet, lint, the tests, the tools, make build, the
# release and the image then share one build cache, so a new machine
# compiles the dependencies once for all of them, not once per configuration.
export CGO_ENABLED ?= 0
ifeq ($(filter -trimpath,$(GOFLAGS)),)
export GOFLAGS := $(strip $(GOFLAGS) -trimpath)
endif
# The race detector's builds: cgo on, and full source paths in its reports.
RACE_ENV = CGO_ENABLED=1 GOFLAGS="$(filter-out -trimpath,$(GOFLAGS))"
GO_TEST_RACE = $(RACE_ENV) go test -race

.PHONY: all
all: build

##@ General

.PHONY: help
help: ## Display this help.
	@awk 'BEGIN {FS = ":.*##"; printf "\nUsage:\n  make \033[36m<target>\033[0m\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-18s\033[0m %s\n", $$1, $$2 } /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) } ' $(MAKEFILE_LIST)

##@ Development

.PHONY: manifests
manifests: controller-gen ## Generate the CRDs, RBAC and webhook manifests from the code markers, and the chart's CRD templates from the CRDs.
	"$(CONTROLLER_GEN)" rbac:roleName=manager-role crd:allowDangerousTypes=true webhook paths="./..." output:crd:artifacts:config=config/crd/bases
	hack/chart-crds.sh

.PHONY: generate
generate: controller-gen ## Generate DeepCopy methods.
	"$(CONTROLLER_GEN)" object:headerFile="hack/boilerplate.go.txt" paths="./..."

# Files produced by manifests and generate.
GENERATED = config/crd/bases dist/chart/templates/crd config/rbac/role.yaml config/webhook/manifests.yaml api/slo/v1alpha1/zz_generated.deepcopy.go api/nodeslo/v1alpha1/zz_generated.deepcopy.go

.PHONY: verify-generated
verify-generated: controller-gen ## Fail if `make manifests generate` would change a generated file.
	@hack/verify-generated.sh "$(MAKE)" $(GENERATED)

.PHONY: verify-docs
verify-docs: ## Fail if a link or reference to a Markdown page (README, docs/, runbook_url) does not resolve.
	@hack/check-doc-links.sh

# The diagrams of docs/images are Graphviz sources (*.dot) rendered to SVG
# beside them, committed so that GitHub shows them. bin/diagrams
# (hack/diagrams, a Go module of its own) runs Graphviz compiled to
# WebAssembly, pinned by hack/diagrams/go.mod like every other tool: the
# same SVG on every machine, with no system Graphviz, no fonts and no root.
.PHONY: diagrams
diagrams: diagrams-renderer ## Render the diagrams of docs/images (*.dot) to SVG.
	$(DIAGRAMS_RUN) render docs/images

.PHONY: verify-diagrams
verify-diagrams: diagrams-renderer ## Fail if an SVG of docs/images is not what its .dot source renders to.
	@$(DIAGRAMS_RUN) check docs/images

.PHONY: fmt
fmt: ## Run go fmt.
	go fmt ./...

# make test does not run it: golangci-lint's govet runs the same analyzers,
# on the build-tagged suites too.
.PHONY: vet
vet: ## Run go vet.
	go vet ./...

.PHONY: lint
lint: golangci-lint ## Run golangci-lint.
	"$(GOLANGCI_LINT)" run ./...

# A count of executions, not a duration: with a duration, Go 1.26's fuzz
# coordinator can report "context deadline exceeded" as a failure when the
# time runs out while a worker is busy (golang/go#75804, fixed in Go 1.27).
# make fuzz fuzzes each target for 10,000 new inputs by default: the six
# targets take about 70 s of wall time and 110 CPU-seconds on a 2-core
# machine (50,000 inputs: 130 s and 225). make test runs each target's seed
# corpus as a plain test, and does not fuzz: fuzzing instruments every
# package it compiles, the standard library included, so on a new machine
# it is a third build of the tree (3.7 minutes on 2 cores), which made it
# the last part of a cold make test. .ci/run fuzzes, after make test.
FUZZTIME ?= 10000x

# The race detector runs where a test exercises concurrency in this process:
# the manager in-process (controllers, caches, webhook server, metrics
# scrapes, leader election: internal/controller, internal/manager,
# internal/webhook, test/crdskew, test/monitoring, test/rbac, test/faults),
# the fault proxy's handlers and rules (test/faultproxy) and the plugin's
# parallel resolver (internal/plugin). The packages of
# NORACE_PACKAGES run without it: their tests only exercise the apiserver's
# answers, or tools run as processes, or plain code on one goroutine (the
# reason for each is in docs/testing.md, "Suites"). RACE_TESTS are the tests
# of such a package that do exercise concurrency, run again alone under
# -race: the engine's configuration is shared by concurrent reconciles
# without locks, and internal/sloconfig's concurrency test only proves that
# under -race (its other tests, on one goroutine, took ten times as long
# under it). Any package not listed, a new one too, runs with -race. Both
# lists run at the same time, each with its own coverage profile, merged
# into cover.out.
NORACE_PACKAGES = cmd hack/release hack/run-local internal/rollout internal/sloconfig internal/sloconfig/rulecases \
	internal/version test/bench test/chart test/crd test/deletionpolicy test/ecosystem test/grafana test/localcluster
RACE_TESTS = internal/sloconfig:^TestConcurrent
# SPLIT_SUITES are envtest suites that spend their time waiting (on watches,
# the controllers' requeues and a Prometheus scrape), not on the CPU:
# internal/controller's ran 348 s at about a sixth of a core. Each runs as
# several go test processes at once, each with its own control plane: one
# per Ginkgo label, and one with the specs that have none of them and the
# package's plain Go tests. Entries are package:suite-function:label,label...;
# a shard that runs no spec fails.
SPLIT_SUITES = internal/controller:TestControllers:rollout,held,gates,metrics,gitops
# ALONE_TESTS (package:TestName, of a SPLIT_SUITES package) run once the
# package's shards are done, one at a time, with the package's binary (the
# fuzz targets may still run beside them); its rest shard skips them. The
# health watch's memory test writes 420 MiB of Pods through its own control
# plane: beside the six shards, the starved apiserver took minutes.
ALONE_TESTS = internal/controller:TestHealthWatchHoldsPodsByCountNotSize
MODULE = $(shell go list -m)
# Test binaries are linked without DWARF and symbol table (-s -w): linking
# is about a fifth of a warm make test's CPU, and they were a third of each
# link; stack traces and race reports name functions, files and lines from
# the runtime's own tables, which stay. Every test binary is built into
# bin/test with go test -c, which links only when the binary there is out
# of date (go test itself links every binary on every run), and run from
# there (hack/test-packages.sh); a SPLIT_SUITES package's binary runs once
# per shard, a fuzz package's once per target. Every -race binary (the
# SPLIT_SUITES' and RACE_TESTS' too) comes from one go test -c, before any
# of them runs: two go commands at once each compile every dependency they
# have not found in the build cache, so the shards' binary, built beside
# the other -race binaries, compiled the -race dependencies a second time
# (on a new machine, about 3 of the 8 minutes they took).
TEST_LDFLAGS = -ldflags="-s -w"

# The chart tests (test/chart) run bin/helm and bin/kustomize: both are
# installed first; the metric gate's specs (internal/controller) start
# bin/prometheus.
.PHONY: test
test: verify-generated verify-docs verify-diagrams lint helm-lint test-alerts kustomize setup-envtest prometheus ## Run the checks and every unit, envtest, chart and alert test (the fuzz targets' seeds included; make fuzz fuzzes) against a real kube-apiserver and etcd (and Prometheus), with -race where concurrency is exercised.
	@export KUBEBUILDER_ASSETS="$$(hack/setup-envtest.sh "$(ENVTEST)" $(ENVTEST_K8S_VERSION) $(ENVTEST_ETCD_VERSION))"; \
	export PROMETHEUS="$(PROMETHEUS)"; \
	all=$$(go list ./... | grep -v /test/e2e); \
	norace=$$(printf '$(MODULE)/%s\n' $(NORACE_PACKAGES)); \
	for p in $$norace; do grep -qxF "$$p" <<<"$$all" || { echo "NORACE_PACKAGES: no package $$p" >&2; exit 2; }; done; \
	split=$$(for s in $(SPLIT_SUITES); do echo "$(MODULE)/$${s%%:*}"; done); \
	for p in $$split; do grep -qxF "$$p" <<<"$$all" || { echo "SPLIT_SUITES: no package $$p" >&2; exit 2; }; done; \
	raced=$$(grep -vxF "$$norace"$$'\n'"$$split" <<<"$$all"); \
	again=$$(for t in $(RACE_TESTS); do echo "$(MODULE)/$${t%%:*}"; done); \
	echo "go test -race: $$(wc -l <<<"$$raced") packages, and in shards by Ginkgo label: $(SPLIT_SUITES); without -race: $(NORACE_PACKAGES); -race again: $(RACE_TESTS)"; \
	hack/test-packages.sh bin/test/norace cover.norace.out -cover -covermode=atomic $(TEST_LDFLAGS) -- $$norace & norace_pid=$$!; \
	built=$$(go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' $$raced $$split $$again); \
	mkdir -p bin/test/race; \
	$(GO_TEST_RACE) -cover $(TEST_LDFLAGS) -c -o bin/test/race/ $$built || { wait $$norace_pid; exit 1; }; \
	$(RACE_ENV) hack/test-packages.sh bin/test/race cover.race.out -race -cover $(TEST_LDFLAGS) -- $$raced & race_pid=$$!; \
	{ shard_pids=""; n=0; \
	for s in $(SPLIT_SUITES); do \
		IFS=: read -r pkg suite labels <<<"$$s"; n=$$((n+1)); rest=""; binary="$(CURDIR)/bin/test/race/$${pkg##*/}.test"; \
		alone=$$(for t in $(ALONE_TESTS); do [ "$${t%%:*}" != "$$pkg" ] || printf '%s|' "$${t#*:}"; done); \
		for label in $${labels//,/ } rest; do \
			skip=""; \
			if [ "$$label" = rest ]; then filter="!($$rest)"; run=.; skip="$${alone:+^($${alone%|})\$$}"; \
			else filter="$$label"; run="^$$suite\$$"; fi; \
			( cd "$$pkg" && start=$$(date +%s) && \
				if "$$binary" -test.count=1 -test.timeout=10m -test.paniconexit0 -test.run "$$run" -test.skip "$$skip" \
					-test.coverprofile "$(CURDIR)/cover.split$$n-$$label.out" -ginkgo.label-filter="$$filter" -ginkgo.fail-on-empty; \
				then echo "ok  	$(MODULE)/$$pkg	$$(( $$(date +%s) - start ))s"; else echo "FAIL	$(MODULE)/$$pkg"; exit 1; fi \
			) >"cover.split$$n-$$label.log" 2>&1 & shard_pids="$$shard_pids $$!"; \
			rest="$${rest:+$$rest || }$$label"; \
		done; \
	done; \
	split_status=0; for p in $$shard_pids; do wait $$p || split_status=1; done; [ $$split_status -eq 0 ] || exit 1; \
	for t in $(ALONE_TESTS); do \
		pkg=$${t%%:*}; name=$${t#*:}; binary="$(CURDIR)/bin/test/race/$${pkg##*/}.test"; log="cover.split-alone-$$name.log"; \
		grep -qxF "$(MODULE)/$$pkg" <<<"$$split" || \
			{ echo "ALONE_TESTS: $$pkg is not a SPLIT_SUITES package" >"$$log"; exit 1; }; \
		start=$$(date +%s); \
		out=$$(cd "$$pkg" && "$$binary" -test.run "^$$name\$$" -test.v -test.count=1 -test.timeout=10m -test.paniconexit0 \
			-test.coverprofile "$(CURDIR)/cover.split-alone-$$name.out" 2>&1) || { echo "$$out" >"$$log"; exit 1; }; \
		grep -q '^--- PASS' <<<"$$out" || { echo "ALONE_TESTS: $$t ran no test" >"$$log"; exit 1; }; \
		{ grep -E '^ +[a-z_]+_test\.go:[0-9]+: ' <<<"$$out"; \
		  echo "ok  	$(MODULE)/$$pkg	$$name	$$(( $$(date +%s) - start ))s"; } >"$$log"; \
	done; \
	} & split_pid=$$!; \
	{ for t in $(RACE_TESTS); do \
		pkg=$${t%%:*}; binary="$(CURDIR)/bin/test/race/$${pkg##*/}.test"; \
		out=$$(cd "$$pkg" && "$$binary" -test.run "$${t#*:}" -test.v -test.paniconexit0 2>&1) || { echo "$$out"; exit 1; }; \
		grep -q '^--- PASS' <<<"$$out" || { echo "RACE_TESTS: $$t ran no test" >&2; exit 1; }; \
		grep -E '^(--- PASS|ok )' <<<"$$out"; \
	done; } & again_pid=$$!; \
	status=0; wait $$race_pid || status=$$?; wait $$norace_pid || status=$$?; wait $$split_pid || status=$$?; \
	wait $$again_pid || status=$$?; \
	for l in cover.split*.log; do \
		[ -e "$$l" ] || continue; \
		shard=$${l#cover.split}; sed "s|^\(ok .*\)|\1 (shard $${shard%.log})|" "$$l"; \
		! grep -q 'no tests to run' "$$l" || { echo "SPLIT_SUITES: $$l ran no test" >&2; status=1; }; \
	done; \
	[ $$status -eq 0 ] || exit $$status; \
	{ echo "mode: atomic"; tail -q -n +2 cover.race.out cover.norace.out cover.split*.out; } > cover.out; \
	rm -f cover.race.out cover.norace.out cover.split*.out cover.split*.log

# The alerts have one source, the PrometheusRule in config/prometheus; its
# rule groups are extracted, as kustomize builds the directory, into a plain
# rules file for promtool (and for a Prometheus without the Operator). The
# dashboard's queries are written as recording rules only so that promtool
# parses them.
ALERT_RULES = bin/monitoring/nodeslo-controller.rules.yaml
DASHBOARD_QUERIES = bin/monitoring/dashboard-queries.rules.yaml

# RUNBOOK_URL is the address of docs/runbook.md that every alert's
# runbook_url (followed by its section's anchor) and the dashboard's
# Runbook link name. Its one default is the value of
# config/prometheus/kustomization.yaml (the default branch's runbook),
# which the chart's runbookURL and the dashboard's link repeat (test/chart
# keeps the three equal); set, it replaces it in the rules file of make
# prometheus-rules (in a copy of config/prometheus) and in the chart make
# release packages. make release pins it to the release's tag.
RUNBOOK_URL ?=
REPOSITORY_URL ?= https://github.com/nodeslo/nodeslo-controller
# The default, read where it is written: the chart's is replaced by it.
RUNBOOK_DEFAULT = $(shell sed -n 's/^  - url=//p' config/prometheus/kustomization.yaml)

.PHONY: prometheus-rules
prometheus-rules: kustomize ## Write the alerts of config/prometheus as a plain Prometheus rules file (bin/monitoring/), with RUNBOOK_URL when set.
	mkdir -p bin/monitoring
	rm -rf bin/monitoring/prometheus && cp -R config/prometheus bin/monitoring/prometheus
	@[ -z "$(RUNBOOK_URL)" ] || { cd bin/monitoring/prometheus && \
		"$(KUSTOMIZE)" edit set configmap runbook --from-literal=url="$(RUNBOOK_URL)"; }
	"$(KUSTOMIZE)" build bin/monitoring/prometheus | go run ./hack/prometheus-rules - > $(ALERT_RULES)
	go run ./hack/prometheus-rules -dashboard config/grafana/nodeslo-controller.json > $(DASHBOARD_QUERIES)

# N is how many runs test-repeat makes; LABEL, when set, limits them to
# internal/controller's envtest suite with that Ginkgo label filter (built
# once), e.g. LABEL=gates or LABEL='!(rollout || held || gates || metrics || gitops)'.
N ?= 10
LABEL ?=

.PHONY: test-repeat
test-repeat: setup-envtest prometheus ## Run make test N times in a row (N=10), or with LABEL one label of internal/controller's suite; print each run and the passes and failures.
	@export KUBEBUILDER_ASSETS="$$(hack/setup-envtest.sh "$(ENVTEST)" $(ENVTEST_K8S_VERSION) $(ENVTEST_ETCD_VERSION))"; \
	export PROMETHEUS="$(PROMETHEUS)"; \
	hack/test-repeat.sh "$(N)" "$(LABEL)"

.PHONY: test-alerts
test-alerts: prometheus-rules promtool ## Run the alerts' promtool tests (test/alerts) on synthetic series; parse the dashboard's queries.
	"$(PROMTOOL)" check rules $(ALERT_RULES) $(DASHBOARD_QUERIES)
	"$(PROMTOOL)" test rules test/alerts/*_test.yaml

# The suite's own timeout (-ginkgo.timeout) is shorter than go test's, so that
# on a hang Ginkgo still runs the cleanups that stop the processes it started.
.PHONY: test-e2e
test-e2e: build build-installer helm setup-envtest ## Run the end-to-end tests: dist/install.yaml and helm install of dist/chart on a local control plane, bin/manager, kubectl.
	KUBEBUILDER_ASSETS="$$(hack/setup-envtest.sh "$(ENVTEST)" $(ENVTEST_K8S_VERSION) $(ENVTEST_ETCD_VERSION))" \
		go test -tags e2e ./test/e2e/ -count=1 -v -ginkgo.v -ginkgo.timeout=15m -timeout=20m

# test-image builds IMG offline (TEST_IMAGE_BUILD=docker-build with
# CONTAINER_TOOL=podman builds it from the registries instead) and runs it
# with podman as config/default's and the chart's Deployments say, against a
# local control plane (test/image). CONTAINER_RUN_FLAGS go after `podman run`
# (this machine's ulimits, say), never the Deployment's settings; by default
# the ulimits hack/image/host-flags.sh chooses for this host.
TEST_IMAGE_BUILD ?= docker-build-offline
CONTAINER_RUN_FLAGS ?= $(shell hack/image/host-flags.sh ulimits $(IMAGE_TOOL))

.PHONY: test-image
test-image: $(TEST_IMAGE_BUILD) kustomize helm setup-envtest ## Build the image and run it as the Deployment and the chart run it (podman, local control plane).
	KUBEBUILDER_ASSETS="$$(hack/setup-envtest.sh "$(ENVTEST)" $(ENVTEST_K8S_VERSION) $(ENVTEST_ETCD_VERSION))" \
		IMG=$(IMG) CONTAINER_TOOL=$(OFFLINE_CONTAINER_TOOL) CONTAINER_TOOL_FLAGS="$(CONTAINER_TOOL_FLAGS)" \
		CONTAINER_RUN_FLAGS="$(CONTAINER_RUN_FLAGS)" \
		go test -tags image ./test/image/ -count=1 -v -ginkgo.v -ginkgo.timeout=10m -timeout=12m

# helm-lint lints the chart strictly with its defaults, with every optional
# part on, with the webhook and metrics off, and with each CRD left out (beside
# Koordinator crd.enabled=false, which leaves the NodeSLORollout CRD in; and
# rolloutCRD.enabled=false), with the values an operator sets beside
# kube-prometheus-stack (labels, a verifiable metrics certificate, Prometheus's
# binding, a PodDisruptionBudget, spreading) and without RBAC, ServiceAccount
# or helm test, each with an image named: the chart requires one
# (no image is published; test/chart checks that the defaults alone are
# refused).
.PHONY: helm-lint
helm-lint: HELM_LINT_IMAGE = --set manager.image.repository=registry.example.com/nodeslo-controller
helm-lint: helm ## Lint the Helm chart in dist/chart (strict).
	"$(HELM)" lint --strict dist/chart $(HELM_LINT_IMAGE)
	"$(HELM)" lint --strict dist/chart $(HELM_LINT_IMAGE) \
		--set networkPolicy.enabled=true,serviceMonitor.enabled=true,prometheusRule.enabled=true,grafanaDashboard.enabled=true \
		--set 'healthGate.podNamespaces={batch,be-jobs}'
	"$(HELM)" lint --strict dist/chart $(HELM_LINT_IMAGE) --set webhook.enabled=false,metrics.enabled=false,leaderElection.enabled=false
	"$(HELM)" lint --strict dist/chart $(HELM_LINT_IMAGE) --set crd.enabled=false
	"$(HELM)" lint --strict dist/chart $(HELM_LINT_IMAGE) --set rolloutCRD.enabled=false,crd.keep=false
	"$(HELM)" lint --strict dist/chart $(HELM_LINT_IMAGE) \
		--set serviceMonitor.enabled=true,prometheusRule.enabled=true,networkPolicy.enabled=true \
		--set metrics.certManager.enabled=true,serviceMonitor.interval=30s,serviceMonitor.scrapeTimeout=10s \
		--set serviceMonitor.labels.release=kube-prometheus-stack,prometheusRule.labels.release=kube-prometheus-stack \
		--set metrics.prometheusServiceAccount.name=prometheus,metrics.prometheusServiceAccount.namespace=monitoring \
		--set podDisruptionBudget.enabled=true,manager.replicas=2,manager.podLabels.team=slo \
		--set manager.env[0].name=HTTPS_PROXY,manager.env[0].value=http://proxy:3128 \
		--set manager.topologySpreadConstraints[0].maxSkew=1 \
		--set manager.topologySpreadConstraints[0].topologyKey=kubernetes.io/hostname \
		--set manager.topologySpreadConstraints[0].whenUnsatisfiable=ScheduleAnyway \
		--set global.imageRegistry=registry.example.com
	"$(HELM)" lint --strict dist/chart $(HELM_LINT_IMAGE) \
		--set rbac.create=false,serviceAccount.create=false,testFramework.enabled=false

# Each package's fuzz targets run from one instrumented test binary, linked
# once (bin/test), in the package's directory (its testdata/fuzz corpus),
# with go test's own corpus cache ($GOCACHE/fuzz/<import path>).
# The fault scenarios (build tag faults, Ginkgo label scenario): a staged
# rollout through minutes of injected apiserver faults each, checked while
# the faults are on (docs/behaviour.md#faults). Too long for make test;
# .ci/run runs them.
.PHONY: test-faults
test-faults: setup-envtest ## Run the fault scenarios of test/faults (minutes each) under -race.
	KUBEBUILDER_ASSETS="$$(hack/setup-envtest.sh "$(ENVTEST)" $(ENVTEST_K8S_VERSION) $(ENVTEST_ETCD_VERSION))" \
		$(GO_TEST_RACE) -tags faults ./test/faults -count=1 -timeout=20m -v -ginkgo.v \
		-ginkgo.label-filter=scenario -ginkgo.fail-on-empty

.PHONY: fuzz
SIM_SECONDS ?= 60
SIM_SEEDS ?=
.PHONY: sim
.PHONY: lines
lines: ## Print the non-blank, non-comment product lines (no _test.go, no generated files) of each package under internal/.
	@for d in internal/*/; do \
		files=$$(ls $$d*.go | grep -v -e '_test\.go$$' -e 'zz_generated'); \
		printf '%6d %s\n' $$(cat $$files | grep -v '^\s*$$' | grep -v '^\s*//' | wc -l) $$d; \
	done

sim: ## Run the rollout simulator (docs/testing.md) for SIM_SECONDS (or SIM_SEEDS seeds) and print decisions/s, seeds, events, violations.
	SIM_SECONDS=$(SIM_SECONDS) SIM_SEEDS=$(SIM_SEEDS) go test ./internal/rollout -run '^TestSimulation$$' -count=1 -v -timeout 0 | grep -v '^=== RUN'

fuzz: ## Run each fuzz target for FUZZTIME (a number of inputs, e.g. 50000x, or a duration).
	@mkdir -p bin/test; cache=$$(go env GOCACHE)/fuzz; \
	for pkg in $$(grep -rlE '^func Fuzz[A-Za-z0-9_]+\(' --include='*_test.go' internal | xargs -n1 dirname | sort -u); do \
		binary="$(CURDIR)/bin/test/fuzz-$${pkg//\//-}.test"; \
		go test $(TEST_LDFLAGS) -c -fuzz=. -o "$$binary" "./$$pkg"; \
		for target in $$(grep -hoE '^func Fuzz[A-Za-z0-9_]+' $$pkg/*_test.go | sed 's/^func //'); do \
			echo "fuzz: $$target in ./$$pkg for $(FUZZTIME)"; \
			( cd "$$pkg" && "$$binary" -test.run='^$$' -test.fuzz="^$$target$$" -test.fuzztime=$(FUZZTIME) \
				-test.fuzzcachedir="$$cache/$(MODULE)/$$pkg" -test.paniconexit0 ) || { echo "FAIL	$(MODULE)/$$pkg $$target"; exit 1; }; \
			echo "ok  	$(MODULE)/$$pkg	$$target"; \
		done; \
	done

.PHONY: bench-micro
bench-micro: ## Run the Go micro-benchmarks of the packages and print their figures.
	go test ./internal/... -run='^$$' -bench=. -benchmem

# plugin-scale measures kubectl-nodeslo on 100,000 realistic Nodes and a
# 1 MiB ConfigMap (wall time, CPU time, peak memory).
.PHONY: plugin-scale
plugin-scale: build ## Measure kubectl-nodeslo validate and render on the largest inputs it is meant for.
	go run ./hack/plugin-scale

# bench options: BENCH_NODES realistic Nodes (about 9 KB each); BENCH_REGIMES
# runs some regimes only, by name prefix (qps30, defaults, unthrottled;
# default: all three); BENCH_REPEAT=N runs each regime's phases N times, floor
# and manager in turn, and adds their medians; BENCH_SWEEP=1 runs 1k, 2k, 5k
# and 10k nodes in turn (or BENCH_SWEEP=a,b,c) and plots bin/bench/scale.png
# (read from the environment by the program).
BENCH_NODES ?= 1000
BENCH_REGIMES ?=
BENCH_REPEAT ?= 1
# BENCH_KWOK=1 (or kubelet, or fast) has kwok keep the Nodes alive (Leases,
# status reports at kubelet's pace or every 10 s) and adds three phases: steady
# and steady-labels (1 % of the nodes relabelled a minute), each BENCH_STEADY
# long (10m by default), and health-gate (a gated rollout halted by canaries
# kwok turns NotReady).
BENCH_KWOK ?=
# BENCH_KOORDINATOR=1 adds Koordinator's koord-manager (KOORDINATOR_VERSION,
# built once by cluster-koordinator) as a third side of each regime, with
# only its NodeSLO controller, and its CRDs beside this project's.
BENCH_KOORDINATOR ?=
bench_koordinator = $(filter-out 0,$(BENCH_KOORDINATOR))
bench_koordinator_flags = $(if $(bench_koordinator),-koordinator-binary="$(KOORDINATOR_DIR)/koord-manager" \
	-koordinator-crds="$$(hack/cluster/build-koordinator.sh $(KOORDINATOR_VERSION) "$(KOORDINATOR_DIR)")")

# The figures are printed, never asserted against times; writes and
# reconciles are checked (the check column). Code: test/bench.
.PHONY: bench
bench: build setup-envtest $(if $(filter-out 0,$(BENCH_KWOK)),kwok) $(if $(bench_koordinator),cluster-koordinator) ## Measure bin/manager at BENCH_NODES nodes against a real apiserver, beside the floor (bin/bench/results.json).
	go build -o bin/bench/nodeslo-bench ./test/bench
	KUBEBUILDER_ASSETS="$$(hack/setup-envtest.sh "$(ENVTEST)" $(ENVTEST_K8S_VERSION) $(ENVTEST_ETCD_VERSION))" \
		bin/bench/nodeslo-bench -nodes=$(BENCH_NODES) -regimes="$(BENCH_REGIMES)" -repeat=$(BENCH_REPEAT) \
		-kwok="$(BENCH_KWOK)" -kwok-binary="$(KWOK)" $(bench_koordinator_flags)

# A cluster with one real node (docs/cluster.md): kubelet, kube-proxy,
# kube-controller-manager and kube-scheduler are built beside the envtest
# binaries; containerd, runc, the CNI plugins and iptables come from Debian;
# cert-manager is built from its Go module (hack/cluster/cert-manager, the
# version its go.mod pins). Root only; its files are in CLUSTER_DIR.
# make test-cluster runs in .ci/run; make run-cluster is the same cluster
# to look around in.
CLUSTER_DIR ?= /tmp/nodeslo-cluster
CERT_MANAGER_VERSION = $(shell sed -n 's/^\s*github.com\/cert-manager\/cert-manager \(v[0-9.]*\)$$/\1/p' hack/cluster/cert-manager/go.mod)
CERT_MANAGER ?= $(LOCALBIN)/cert-manager-$(CERT_MANAGER_VERSION)
# CLUSTER_IMAGE_BUILD builds IMG for test-cluster and run-cluster (as
# test-image does); empty: IMG must already be in OFFLINE_CONTAINER_TOOL's
# storage.
CLUSTER_IMAGE_BUILD ?= docker-build-offline
CLUSTER_ENV = KUBEBUILDER_ASSETS="$$(hack/setup-envtest.sh "$(ENVTEST)" $(ENVTEST_K8S_VERSION) $(ENVTEST_ETCD_VERSION))" \
	CERT_MANAGER_CRDS="$$(hack/cluster/build-cert-manager.sh "$(CERT_MANAGER)")"
# Koordinator's programs that test-cluster runs beside the controller
# (koordlet on the node, koord-manager as its Deployment), built from the
# Go module proxy at this tag (docs/cluster.md#koordinator).
KOORDINATOR_VERSION ?= v1.8.0
KOORDINATOR_DIR ?= $(LOCALBIN)/koordinator-$(KOORDINATOR_VERSION)
# CLUSTER_SMOKE_IMAGE: an image in OFFLINE_CONTAINER_TOOL's storage (e.g. the
# IMG make docker-build-offline built) that cluster-smoke also loads into
# containerd and runs on the node: /manager --version, then the rendering
# for it (dist/crds.yaml and dist/install.yaml, without cert-manager's
# objects) until the Deployment is available. Empty: not checked.
CLUSTER_SMOKE_IMAGE ?=

.PHONY: cluster-binaries
cluster-binaries: setup-envtest ## Build kubelet, kube-proxy, kube-controller-manager and kube-scheduler beside the envtest binaries (once).
	@assets="$$(hack/setup-envtest.sh "$(ENVTEST)" $(ENVTEST_K8S_VERSION) $(ENVTEST_ETCD_VERSION))"; \
		hack/cluster/build-node-binaries.sh $(ENVTEST_K8S_VERSION) "$${assets%/k8s/*}"

.PHONY: cluster-node-packages
cluster-node-packages: ## Install containerd, runc, the CNI plugins and iptables (apt) and write CLUSTER_DIR's containerd config and sandbox image.
	hack/cluster/install-node-packages.sh "$(CLUSTER_DIR)"

.PHONY: cluster-cert-manager
cluster-cert-manager: ## Build cert-manager's controller and CA injector (hack/cluster/cert-manager) into bin/ (once).
	hack/cluster/build-cert-manager.sh "$(CERT_MANAGER)" >/dev/null

# The suite's own timeout is shorter than go test's, so that on a hang
# Ginkgo still stops the cluster and cleans up the host.
.PHONY: cluster-koordinator
cluster-koordinator: ## Build Koordinator's koordlet and koord-manager (and its image) at KOORDINATOR_VERSION into KOORDINATOR_DIR (once).
	hack/cluster/build-koordinator.sh $(KOORDINATOR_VERSION) "$(KOORDINATOR_DIR)" >/dev/null

.PHONY: test-cluster
test-cluster: cluster-binaries cluster-node-packages cluster-cert-manager cluster-koordinator $(CLUSTER_IMAGE_BUILD) build kustomize helm setup-envtest prometheus ## Deploy the controller with make deploy and helm into a one-node cluster with cert-manager, hand over from Koordinator's koord-manager and back with koordlet on the node, and run the scenarios (root; docs/testing.md).
	$(CLUSTER_ENV) CLUSTER_DIR="$(CLUSTER_DIR)" CLUSTER_IMAGE="$(IMG)" CLUSTER_IMAGE_TOOL="$(OFFLINE_CONTAINER_TOOL)" \
		CERT_MANAGER="$(CERT_MANAGER)" KOORDLET="$(KOORDINATOR_DIR)/koordlet" PROMETHEUS="$(PROMETHEUS)" \
		KOORD_MANAGER_IMAGE="$(KOORDINATOR_DIR)/koord-manager-image.tar" \
		KOORDINATOR_CRDS="$$(hack/cluster/build-koordinator.sh $(KOORDINATOR_VERSION) "$(KOORDINATOR_DIR)")" \
		go test -tags cluster ./test/cluster/ -count=1 -v -ginkgo.v -ginkgo.timeout=40m -timeout=45m

.PHONY: run-cluster
run-cluster: cluster-binaries cluster-node-packages cluster-cert-manager $(CLUSTER_IMAGE_BUILD) setup-envtest ## Start the one-node cluster with cert-manager and IMG loaded, kubeconfig in bin/cluster/ (root; Ctrl-C stops and cleans up).
	$(GO_BUILD) -o bin/run-cluster ./hack/run-cluster
	$(CLUSTER_ENV); bin/run-cluster -dir "$(CLUSTER_DIR)" -assets "$$KUBEBUILDER_ASSETS" -kubeconfig bin/cluster/kubeconfig \
		-cert-manager "$(CERT_MANAGER)" -cert-manager-crds "$$CERT_MANAGER_CRDS" \
		-image "$(IMG)" -image-tool "$(OFFLINE_CONTAINER_TOOL)"

comma = ,
.PHONY: cluster-smoke
cluster-smoke: cluster-binaries cluster-node-packages ## Start the one-node cluster, run a restricted Pod to Ready, reach the kubernetes Service from a pod, stop it and check the host is as before.
	go build -o bin/cluster-smoke ./hack/cluster/smoke
	@if [ -n "$(CLUSTER_SMOKE_IMAGE)" ]; then $(MAKE) --no-print-directory build-installer IMG="$(CLUSTER_SMOKE_IMAGE)"; fi
	bin/cluster-smoke -dir "$(CLUSTER_DIR)" -image "$(CLUSTER_SMOKE_IMAGE)" -image-tool "$(OFFLINE_CONTAINER_TOOL)" \
		-install "$(if $(CLUSTER_SMOKE_IMAGE),dist/crds.yaml$(comma)dist/install.yaml)" \
		-assets "$$(hack/setup-envtest.sh "$(ENVTEST)" $(ENVTEST_K8S_VERSION) $(ENVTEST_ETCD_VERSION))"

##@ Build

.PHONY: build
build: ## Build the manager, the kubectl-nodeslo plugin and its completer kubectl_complete-nodeslo into bin/.
	$(GO_BUILD) -o bin/manager ./cmd
	$(GO_BUILD) -o bin/kubectl-nodeslo ./cmd/kubectl-nodeslo
	$(GO_BUILD) -o bin/kubectl_complete-nodeslo ./cmd/kubectl_complete-nodeslo

.PHONY: run
run: ## Run the manager against the cluster of the current kubeconfig.
	go run ./cmd

# run-local options: LOCAL_PERSIST=1 keeps the control plane's etcd data in
# bin/local/etcd between runs; LOCAL_CONTROL_PLANE_ONLY=1 starts only the
# control plane (run the manager yourself, e.g. from an IDE, with
# KUBECONFIG=bin/local/kubeconfig); LOCAL_WEBHOOK=0 runs the manager without
# its admission webhook; LOCAL_NODES=N adds N Nodes beside the four
# samples (pool-1..pool-N, node-pool=general, the first tenth of them at
# least one, canary-1.. labelled node-restriction.kubernetes.io/nodeslo-canary=true), for the staged rollouts of
# docs/rollout-walkthrough.md.
LOCAL_PERSIST ?= 0
LOCAL_CONTROL_PLANE_ONLY ?= 0
LOCAL_WEBHOOK ?= 1
LOCAL_NODES ?= 0

.PHONY: run-local
run-local: build setup-envtest kubectl ## Start a local control plane with the samples and run the manager on it (Ctrl-C stops all); kubectl in bin/.
	$(GO_BUILD) -o bin/run-local ./hack/run-local
	KUBEBUILDER_ASSETS="$$(hack/setup-envtest.sh "$(ENVTEST)" $(ENVTEST_K8S_VERSION) $(ENVTEST_ETCD_VERSION))" \
		bin/run-local --persist=$(LOCAL_PERSIST) --control-plane-only=$(LOCAL_CONTROL_PLANE_ONLY) \
		--webhook=$(LOCAL_WEBHOOK) --nodes=$(LOCAL_NODES)

# kubectl is envtest's (the control plane's version), copied into bin/ so
# that the README's `PATH=$$PWD/bin:$$PATH` finds it beside kubectl-nodeslo.
.PHONY: kubectl
kubectl: setup-envtest ## Copy the control plane's kubectl into bin/ (make run-local does).
	@install -m 0755 "$$(hack/setup-envtest.sh "$(ENVTEST)" $(ENVTEST_K8S_VERSION) $(ENVTEST_ETCD_VERSION))/kubectl" "$(LOCALBIN)/kubectl"

# test-docs runs the transcripts of the README and of
# docs/rollout-walkthrough.md (the blocks marked `<!-- transcript ... -->`)
# against bin/run-local and compares their output with the page, ages,
# times, ports and fingerprints masked (test/transcripts; a difference
# prints the command's whole output, to paste into the page). About 2
# minutes, mostly waiting on the walkthrough's rollout steps.
.PHONY: test-docs
test-docs: build kubectl ## Run the README's and the walkthrough's transcripts on run-local and compare them with the pages.
	$(GO_BUILD) -o bin/run-local ./hack/run-local
	KUBEBUILDER_ASSETS="$$(hack/setup-envtest.sh "$(ENVTEST)" $(ENVTEST_K8S_VERSION) $(ENVTEST_ETCD_VERSION))" \
		go test -tags transcripts ./test/transcripts/ -count=1 -v -timeout=10m

# CONTAINER_TOOL_FLAGS go before the command (podman: --runtime runc, where
# crun cannot run, e.g. on cgroup v1 hybrid hosts); CONTAINER_BUILD_FLAGS
# after `build` (e.g. --ulimit nofile=20000:20000 --ulimit nproc=1024:1024
# in a sandbox whose hard limits are lower than the runtime's defaults).
# Their defaults are what hack/image/host-flags.sh finds this host needs
# (nothing for docker); setting them, even empty, replaces that choice.
# IMAGE_TOOL is the tool of the target that uses them.
IMAGE_TOOL = $(CONTAINER_TOOL)
CONTAINER_TOOL_FLAGS ?= $(shell hack/image/host-flags.sh global $(IMAGE_TOOL))
CONTAINER_BUILD_FLAGS ?= $(shell hack/image/host-flags.sh ulimits $(IMAGE_TOOL))
# The image's binary carries the same version as make build's.
IMAGE_VERSION_ARGS = --build-arg VERSION=$(VERSION) --build-arg REVISION=$(REVISION)

.PHONY: docker-build
docker-build: ## Build the manager image IMG (default tag VERSION) from the Dockerfile with CONTAINER_TOOL (docker or podman), stamped with VERSION and REVISION.
	$(CONTAINER_TOOL) $(CONTAINER_TOOL_FLAGS) build $(CONTAINER_BUILD_FLAGS) $(IMAGE_VERSION_ARGS) -t ${IMG} .

# The same Dockerfile with local stand-ins for golang:1.26 and
# distroless/static:nonroot (no registry needed; modules from GOPROXY).
docker-build-offline test-image: IMAGE_TOOL = $(OFFLINE_CONTAINER_TOOL)
.PHONY: docker-build-offline
docker-build-offline: ## Build the manager image IMG without a registry (hack/image/build-offline.sh; podman by default).
	CONTAINER_TOOL=$(OFFLINE_CONTAINER_TOOL) CONTAINER_TOOL_FLAGS="$(CONTAINER_TOOL_FLAGS)" \
		CONTAINER_BUILD_FLAGS="$(CONTAINER_BUILD_FLAGS) $(IMAGE_VERSION_ARGS)" hack/image/build-offline.sh ${IMG}

.PHONY: docker-push
docker-push: ## Push the manager image.
	$(CONTAINER_TOOL) push ${IMG}

# The CRDs are a file of their own, so that `kubectl delete -f dist/install.yaml`
# removes the controller and keeps every NodeSLO and NodeSLORollout (docs/install.md).
.PHONY: build-installer
build-installer: manifests kustomize ## Write dist/crds.yaml (the NodeSLO and NodeSLORollout CRDs) and dist/install.yaml (the controller, IMG=...).
	mkdir -p dist
	"$(KUSTOMIZE)" build config/crd > dist/crds.yaml
	$(call with-image,"$(KUSTOMIZE)" build config/default > dist/install.yaml)

##@ Release

# What `make release` writes: RELEASE_DIR is gitignored (dist/* is).
RELEASE_DIR ?= dist/release
RELEASE_PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64
# Where the krew manifest says the plugin archives are downloaded from: the
# files of dist/release are meant to be attached to the GitHub release of
# the tag VERSION.
RELEASE_URL ?= $(REPOSITORY_URL)/releases/download/$(VERSION)

# release builds the files of one version (plain Makefile steps, not
# GoReleaser: see docs/install.md). The binaries are built with GO_BUILD, as
# by `make build`; the archives, krew manifest and checksums are written by
# hack/release (standard library only, reproducible archives). The chart is
# packaged with its version and appVersion set to VERSION, so its image tag
# defaults to VERSION, and, when IMAGE_REPO names a registry (has a /), with
# manager.image.repository set to it, so that it installs as it is; else it
# requires that value at install. install.yaml names $(IMAGE_REPO):$(VERSION).
# The chart's alerts and dashboard link the runbook of the release's tag
# (RUNBOOK_URL, pinned below unless given on the command line).
.PHONY: release
release: RUNBOOK_URL = $(REPOSITORY_URL)/blob/$(VERSION)/docs/runbook.md
release: manifests kustomize helm ## Write the release files of VERSION (e.g. make release VERSION=v0.3.0) into dist/release.
	@[[ "$(VERSION)" =~ ^v[0-9]+\.[0-9]+\.[0-9]+ ]] || { echo "VERSION=$(VERSION) is not vX.Y.Z[-...]" >&2; exit 2; }
	rm -rf "$(RELEASE_DIR)" bin/release
	mkdir -p "$(RELEASE_DIR)" bin/release
	go build -o bin/release/release ./hack/release
	@for platform in $(RELEASE_PLATFORMS); do \
		os=$${platform%/*}; arch=$${platform#*/}; exe=; [ "$$os" = windows ] && exe=.exe; \
		binary=bin/release/$$os-$$arch/kubectl-nodeslo$$exe; completer=bin/release/$$os-$$arch/kubectl_complete-nodeslo$$exe; \
		echo "building $$binary and $$completer"; \
		GOOS=$$os GOARCH=$$arch $(GO_BUILD) -o $$binary ./cmd/kubectl-nodeslo; \
		GOOS=$$os GOARCH=$$arch $(GO_BUILD) -o $$completer ./cmd/kubectl_complete-nodeslo; \
		bin/release/release archive -version "$(VERSION)" -os $$os -arch $$arch -binary $$binary -completer $$completer \
			-license LICENSE -out "$(RELEASE_DIR)"; \
	done
	bin/release/release krew-manifest -version "$(VERSION)" -url-base "$(RELEASE_URL)" -dir "$(RELEASE_DIR)"
	rm -rf bin/release/chart && cp -R dist/chart bin/release/chart
	@case "$(IMAGE_REPO)" in */*) \
		sed -i 's|^    repository: ""$$|    repository: $(IMAGE_REPO)|' bin/release/chart/values.yaml; \
		grep -qxF '    repository: $(IMAGE_REPO)' bin/release/chart/values.yaml || { echo "release: could not set the chart's image repository" >&2; exit 1; }; \
		echo "release: the chart's image is $(IMAGE_REPO), tag $(VERSION)";; \
	*) echo "release: IMAGE_REPO=$(IMAGE_REPO) names no registry: the chart requires manager.image.repository at install";; esac
	sed -i 's|^runbookURL: $(RUNBOOK_DEFAULT)$$|runbookURL: $(RUNBOOK_URL)|' bin/release/chart/values.yaml
	@grep -qxF 'runbookURL: $(RUNBOOK_URL)' bin/release/chart/values.yaml || { echo "release: could not set the chart's runbookURL" >&2; exit 1; }
	@echo "release: the alerts and the dashboard link $(RUNBOOK_URL)"
	"$(HELM)" package bin/release/chart --version "$(VERSION)" --app-version "$(VERSION)" -d "$(RELEASE_DIR)"
	"$(KUSTOMIZE)" build config/crd > "$(RELEASE_DIR)/crds.yaml"
	$(call with-image,"$(KUSTOMIZE)" build config/default > "$(RELEASE_DIR)/install.yaml")
	bin/release/release checksums -dir "$(RELEASE_DIR)"

# test-release installs what `make release` wrote, as users would: krew
# (built from the Go module proxy) installs the plugin from the krew manifest
# and the local archive into a scratch KREW_ROOT, helm installs the chart
# package on a local control plane; every checksum is checked.
.PHONY: test-release
test-release: RUNBOOK_URL = $(REPOSITORY_URL)/blob/$(VERSION)/docs/runbook.md
test-release: release krew helm setup-envtest ## Make the release of VERSION and install its plugin (krew) and chart (helm) on a local control plane.
	KUBEBUILDER_ASSETS="$$(hack/setup-envtest.sh "$(ENVTEST)" $(ENVTEST_K8S_VERSION) $(ENVTEST_ETCD_VERSION))" \
		RELEASE_DIR="$(abspath $(RELEASE_DIR))" RELEASE_VERSION="$(VERSION)" RELEASE_IMAGE="$(IMG)" \
		RELEASE_RUNBOOK_URL="$(RUNBOOK_URL)" \
		KREW="$(KREW)" HELM="$(HELM)" RELEASE_PLATFORMS="$(RELEASE_PLATFORMS)" \
		go test -tags release ./test/release/ -count=1 -v -timeout=10m

##@ Deployment

ignore-not-found ?= false
# DELETE_CRD=true lets undeploy and uninstall delete the CRDs, and with them
# every NodeSLO the node agents read and the NodeSLORollout, the controller's
# record of the rollout; by default both keep them.
DELETE_CRD ?= false

.PHONY: install
install: manifests kustomize ## Install the CRDs (NodeSLO, NodeSLORollout) into the cluster of the current kubeconfig.
	"$(KUSTOMIZE)" build config/crd | "$(KUBECTL)" apply --server-side -f -

.PHONY: uninstall
uninstall: manifests kustomize ## Delete the CRDs, every NodeSLO and NodeSLORollout, only with DELETE_CRD=true (ignore-not-found=true to ignore missing objects).
	$(delete-crd)

# delete-crd deletes the CRDs with DELETE_CRD=true, and says it kept them
# otherwise (test/e2e looks for "keeping the CRD and every NodeSLO" and
# "deleting the CRD").
define delete-crd
@if [ "$(DELETE_CRD)" = true ]; then \
	echo "deleting the CRDs, and with them every NodeSLO and NodeSLORollout (DELETE_CRD=true)"; \
	"$(KUSTOMIZE)" build config/crd | "$(KUBECTL)" delete --ignore-not-found=$(ignore-not-found) -f -; \
else \
	echo "keeping the CRD and every NodeSLO, and the NodeSLORollout CRD and the rollout's record (DELETE_CRD=true deletes them)"; \
fi
endef

# DEPLOY_ROLLOUT=false leaves out the NodeSLORollout make deploy creates
# (config/rollout): without one, every change reaches every node at once.
DEPLOY_ROLLOUT ?= true

# deploy applies the CRDs first (make install), then the controller into
# koordinator-system, which must exist (docs/install.md), then creates the
# NodeSLORollout of config/rollout when there is none: created, never
# applied over, so that the operator's strategy and the rollout's state in
# its status outlive a later make deploy. It waits for the NodeSLORollout
# CRD first: kubectl cannot create an object of a kind not yet served.
.PHONY: deploy
deploy: install ## Deploy the CRDs, the controller (IMG=...) and, unless DEPLOY_ROLLOUT=false, a NodeSLORollout with a conservative strategy to the cluster of the current kubeconfig.
	$(call with-image,"$(KUSTOMIZE)" build config/default | "$(KUBECTL)" apply --server-side -f -)
	@if [ "$(DEPLOY_ROLLOUT)" = true ]; then \
		"$(KUBECTL)" wait --for=condition=Established --timeout=60s crd/nodeslorollouts.nodeslo.koordinator.sh && \
		rollout=$$("$(KUSTOMIZE)" build config/rollout) && \
		{ printf '%s\n' "$$rollout" | "$(KUBECTL)" get -f - -o name 2>/dev/null || \
			printf '%s\n' "$$rollout" | "$(KUBECTL)" create -f -; }; \
	else \
		echo "no NodeSLORollout created (DEPLOY_ROLLOUT=false): every change reaches every node at once"; \
	fi

# undeploy deletes what config/default applied, which holds neither the
# namespace (Koordinator's), the CRDs nor the NodeSLORollout (the rollout's
# policy and state); the CRDs, and with them the NodeSLORollout, go only
# with DELETE_CRD=true.
.PHONY: undeploy
undeploy: kustomize ## Remove the controller, keeping the namespace, the CRDs, every NodeSLO and NodeSLORollout (DELETE_CRD=true deletes the CRDs too).
	"$(KUSTOMIZE)" build config/default | "$(KUBECTL)" delete --ignore-not-found=$(ignore-not-found) -f -
	$(delete-crd)

# with-image runs $(1) with the manager image set to IMG, then puts
# config/manager/kustomization.yaml back as committed, so that deploying or
# building the installer (in CI, too) leaves no diff in tracked files.
define with-image
@cp config/manager/kustomization.yaml config/manager/kustomization.yaml.orig; \
status=0; \
( cd config/manager && "$(KUSTOMIZE)" edit set image controller=${IMG} ) && { $(1); } || status=$$?; \
mv config/manager/kustomization.yaml.orig config/manager/kustomization.yaml; \
exit $$status
endef

##@ Dependencies

LOCALBIN ?= $(shell pwd)/bin
$(LOCALBIN):
	mkdir -p "$(LOCALBIN)"

KUBECTL ?= kubectl
KUSTOMIZE ?= $(LOCALBIN)/kustomize
CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen
ENVTEST ?= $(LOCALBIN)/setup-envtest
GOLANGCI_LINT ?= $(LOCALBIN)/golangci-lint
HELM ?= $(LOCALBIN)/helm
PROMTOOL ?= $(LOCALBIN)/promtool
PROMETHEUS ?= $(LOCALBIN)/prometheus
KREW ?= $(LOCALBIN)/krew
KWOK ?= $(LOCALBIN)/kwok
DIAGRAMS ?= $(LOCALBIN)/diagrams

# v5.8.3 and later need Go 1.27; this project builds with Go 1.26.
KUSTOMIZE_VERSION ?= v5.8.1
CONTROLLER_TOOLS_VERSION ?= v0.23.0
ENVTEST_VERSION ?= v0.25.1
GOLANGCI_LINT_VERSION ?= v2.15.0
# Built from the Go module proxy like the other tools (about 2 minutes cold).
HELM_VERSION ?= v3.22.0
# Prometheus 3.16.0's Go module version.
PROMTOOL_VERSION ?= v0.316.0
# krew installs the released plugin in make test-release.
KREW_VERSION ?= v0.4.3
KWOK_VERSION ?= v0.8.0

# go-graphviz keeps its compiled WebAssembly in $TMPDIR/go-graphviz: in bin/,
# so that it is this checkout's and never another user's /tmp/go-graphviz.
DIAGRAMS_RUN = mkdir -p "$(LOCALBIN)/diagrams-cache" && TMPDIR="$(LOCALBIN)/diagrams-cache" $(DIAGRAMS)

.PHONY: diagrams-renderer
diagrams-renderer: $(DIAGRAMS) ## Build bin/diagrams (Graphviz as WebAssembly, hack/diagrams).
$(DIAGRAMS): $(LOCALBIN) hack/diagrams/main.go hack/diagrams/go.mod hack/diagrams/go.sum
	cd hack/diagrams && go build -o $(DIAGRAMS) .

.PHONY: kustomize
kustomize: $(KUSTOMIZE) ## Install kustomize into bin/.
$(KUSTOMIZE): $(LOCALBIN)
	$(call go-install-tool,$(KUSTOMIZE),sigs.k8s.io/kustomize/kustomize/v5,$(KUSTOMIZE_VERSION))

.PHONY: controller-gen
controller-gen: $(CONTROLLER_GEN) ## Install controller-gen into bin/.
$(CONTROLLER_GEN): $(LOCALBIN)
	$(call go-install-tool,$(CONTROLLER_GEN),sigs.k8s.io/controller-tools/cmd/controller-gen,$(CONTROLLER_TOOLS_VERSION))

.PHONY: setup-envtest
setup-envtest: envtest ## Provide kube-apiserver and etcd for envtest (download, or build offline).
	@hack/setup-envtest.sh "$(ENVTEST)" $(ENVTEST_K8S_VERSION) $(ENVTEST_ETCD_VERSION) >/dev/null

.PHONY: envtest
envtest: $(ENVTEST) ## Install setup-envtest into bin/.
$(ENVTEST): $(LOCALBIN)
	$(call go-install-tool,$(ENVTEST),sigs.k8s.io/controller-runtime/tools/setup-envtest,$(ENVTEST_VERSION))

.PHONY: golangci-lint
golangci-lint: $(GOLANGCI_LINT) ## Install golangci-lint into bin/.
$(GOLANGCI_LINT): $(LOCALBIN)
	$(call go-install-tool,$(GOLANGCI_LINT),github.com/golangci/golangci-lint/v2/cmd/golangci-lint,$(GOLANGCI_LINT_VERSION))

.PHONY: helm
helm: $(HELM) ## Install helm into bin/.
$(HELM): $(LOCALBIN)
	$(call go-install-tool,$(HELM),helm.sh/helm/v3/cmd/helm,$(HELM_VERSION))

.PHONY: krew
krew: $(KREW) ## Install krew into bin/.
$(KREW): $(LOCALBIN)
	$(call go-install-tool,$(KREW),sigs.k8s.io/krew/cmd/krew,$(KREW_VERSION))

.PHONY: kwok
kwok: $(KWOK) ## Install kwok into bin/ (BENCH_KWOK=1 make bench: nodes that live).
$(KWOK): $(LOCALBIN)
	$(call go-install-tool,$(KWOK),sigs.k8s.io/kwok/cmd/kwok,$(KWOK_VERSION))

# promtool and the Prometheus server the metric gate's specs query
# (internal/controller, metric_gate_test.go) come from one go install: the
# same module, version and tags, without the service-discovery plugins
# (AWS, Azure, GCE, ...), which only `promtool check service-discovery`
# would use. Their shared packages compile once and the two links run side
# by side; nothing is built once bin/promtool-$(PROMTOOL_VERSION) and
# bin/prometheus-$(PROMTOOL_VERSION) exist.
PROMETHEUS_TOOLS = $(PROMTOOL) $(PROMETHEUS)
PROMETHEUS_PACKAGES = github.com/prometheus/prometheus/cmd/promtool github.com/prometheus/prometheus/cmd/prometheus
.PHONY: promtool
promtool: $(PROMTOOL) ## Install promtool (and the Prometheus server) into bin/.
$(PROMTOOL): $(LOCALBIN)
	$(call go-install-tool,$(PROMETHEUS_TOOLS),$(PROMETHEUS_PACKAGES),$(PROMTOOL_VERSION),-tags=remove_all_sd)

.PHONY: prometheus
prometheus: $(PROMETHEUS) ## Install the Prometheus server (and promtool) into bin/.
$(PROMETHEUS): $(LOCALBIN)
	$(call go-install-tool,$(PROMETHEUS_TOOLS),$(PROMETHEUS_PACKAGES),$(PROMTOOL_VERSION),-tags=remove_all_sd)

# go-install-tool installs the packages $(2) at version $(3) as the tools
# $(1) (one path each, in the same order), each as <path>-$(3) linked from
# <path>, with one go install (further flags: $(4)) when any is missing.
define go-install-tool
@set -e; missing=""; \
for tool in $(1); do [ -f "$$tool-$(3)" ] || missing=1; done; \
if [ -n "$$missing" ]; then \
	echo "Installing $(foreach package,$(2),$(package)@$(3))"; \
	for tool in $(1); do rm -f "$$tool"; done; \
	GOBIN="$(LOCALBIN)" go install $(4) $(foreach package,$(2),$(package)@$(3)); \
	for tool in $(1); do mv "$(LOCALBIN)/$$(basename "$$tool")" "$$tool-$(3)"; done; \
fi; \
for tool in $(1); do ln -sf "$$tool-$(3)" "$$tool"; done
endef
