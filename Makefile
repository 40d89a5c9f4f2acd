# Image URL used by docker-build, deploy and build-installer.
IMG ?= nodeslo-controller:latest

# Kubernetes and etcd versions of the control plane the tests run against.
ENVTEST_K8S_VERSION ?= 1.37.2
ENVTEST_ETCD_VERSION ?= 3.6.16

CONTAINER_TOOL ?= docker

SHELL = /usr/bin/env bash -o pipefail
.SHELLFLAGS = -ec

# One build command for the manager, shared by `make build` and the Dockerfile.
GO_BUILD = CGO_ENABLED=0 go build -trimpath -ldflags="-s -w"

.PHONY: all
all: build

##@ General

.PHONY: help
help: ## Display this help.
	@awk 'BEGIN {FS = ":.*##"; printf "\nUsage:\n  make \033[36m<target>\033[0m\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-18s\033[0m %s\n", $$1, $$2 } /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) } ' $(MAKEFILE_LIST)

##@ Development

.PHONY: manifests
manifests: controller-gen ## Generate the CRD, RBAC and webhook manifests from the code markers.
	"$(CONTROLLER_GEN)" rbac:roleName=manager-role crd webhook paths="./..." output:crd:artifacts:config=config/crd/bases

.PHONY: generate
generate: controller-gen ## Generate DeepCopy methods.
	"$(CONTROLLER_GEN)" object:headerFile="hack/boilerplate.go.txt" paths="./..."

# Files produced by manifests and generate.
GENERATED = config/crd/bases config/rbac/role.yaml config/webhook/manifests.yaml api/v1alpha1/zz_generated.deepcopy.go

.PHONY: verify-generated
verify-generated: controller-gen ## Fail if `make manifests generate` would change a generated file.
	@hack/verify-generated.sh "$(MAKE)" $(GENERATED)

.PHONY: verify-docs
verify-docs: ## Fail if a reference to docs/behaviour.md or docs/nodeslo-api.md does not resolve.
	@hack/check-doc-links.sh

.PHONY: fmt
fmt: ## Run go fmt.
	go fmt ./...

.PHONY: vet
vet: ## Run go vet.
	go vet ./...

.PHONY: lint
lint: golangci-lint ## Run golangci-lint.
	"$(GOLANGCI_LINT)" run ./...

FUZZTIME ?= 20s

# Every unit and envtest suite runs with the race detector: the engine's
# configuration is shared by concurrent reconciles without locks, and the
# concurrency tests only prove that under -race.
.PHONY: test
test: verify-generated verify-docs vet lint setup-envtest kustomize ## Run every test (unit, envtest, fuzz) with -race against a real kube-apiserver and etcd.
	KUBEBUILDER_ASSETS="$$(hack/setup-envtest.sh "$(ENVTEST)" $(ENVTEST_K8S_VERSION) $(ENVTEST_ETCD_VERSION))" \
		CGO_ENABLED=1 go test -race $$(go list ./... | grep -v /test/e2e) -count=1 -coverprofile cover.out
	$(MAKE) --no-print-directory fuzz

# The suite's own timeout (-ginkgo.timeout) is shorter than go test's, so that
# on a hang Ginkgo still runs the cleanups that stop the processes it started.
.PHONY: test-e2e
test-e2e: build build-installer setup-envtest ## Run the end-to-end tests: dist/install.yaml on a local control plane, bin/manager, kubectl.
	KUBEBUILDER_ASSETS="$$(hack/setup-envtest.sh "$(ENVTEST)" $(ENVTEST_K8S_VERSION) $(ENVTEST_ETCD_VERSION))" \
		go test -tags e2e ./test/e2e/ -count=1 -v -ginkgo.v -ginkgo.timeout=8m -timeout=10m

.PHONY: fuzz
fuzz: ## Run each fuzz target for FUZZTIME.
	@for target in $$(grep -rhoE '^func Fuzz[A-Za-z0-9_]+' --include='*_test.go' internal | sed 's/^func //'); do \
		pkg=$$(dirname $$(grep -rlE "^func $$target\(" --include='*_test.go' internal | head -1)); \
		echo "fuzz: $$target in ./$$pkg for $(FUZZTIME)"; \
		go test ./$$pkg -run='^$$' -fuzz="^$$target$$" -fuzztime=$(FUZZTIME); \
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
# runs some regimes only, by name prefix (qps30, defaults; default: both);
# BENCH_SWEEP=1 runs 1k, 2k, 5k and 10k nodes in turn (or BENCH_SWEEP=a,b,c)
# and plots bin/bench/scale.png (read from the environment by the program).
BENCH_NODES ?= 1000
BENCH_REGIMES ?=

# The figures are printed, never asserted against times; writes and
# reconciles are checked (the check column). Code: test/bench.
.PHONY: bench
bench: build setup-envtest ## Measure bin/manager at BENCH_NODES nodes against a real apiserver, beside the floor (bin/bench/results.json).
	go build -o bin/bench/nodeslo-bench ./test/bench
	KUBEBUILDER_ASSETS="$$(hack/setup-envtest.sh "$(ENVTEST)" $(ENVTEST_K8S_VERSION) $(ENVTEST_ETCD_VERSION))" \
		bin/bench/nodeslo-bench -nodes=$(BENCH_NODES) -regimes="$(BENCH_REGIMES)"

##@ Build

.PHONY: build
build: ## Build the manager and the kubectl-nodeslo plugin into bin/.
	$(GO_BUILD) -o bin/manager ./cmd
	$(GO_BUILD) -o bin/kubectl-nodeslo ./cmd/kubectl-nodeslo

.PHONY: run
run: ## Run the manager against the cluster of the current kubeconfig.
	go run ./cmd

# run-local options: LOCAL_PERSIST=1 keeps the control plane's etcd data in
# bin/local/etcd between runs; LOCAL_CONTROL_PLANE_ONLY=1 starts only the
# control plane (run the manager yourself, e.g. from an IDE, with
# KUBECONFIG=bin/local/kubeconfig); LOCAL_WEBHOOK=0 runs the manager without
# its admission webhook.
LOCAL_PERSIST ?= 0
LOCAL_CONTROL_PLANE_ONLY ?= 0
LOCAL_WEBHOOK ?= 1

.PHONY: run-local
run-local: build setup-envtest ## Start a local control plane with the samples and run the manager on it (Ctrl-C stops all).
	$(GO_BUILD) -o bin/run-local ./hack/run-local
	KUBEBUILDER_ASSETS="$$(hack/setup-envtest.sh "$(ENVTEST)" $(ENVTEST_K8S_VERSION) $(ENVTEST_ETCD_VERSION))" \
		bin/run-local --persist=$(LOCAL_PERSIST) --control-plane-only=$(LOCAL_CONTROL_PLANE_ONLY) \
		--webhook=$(LOCAL_WEBHOOK)

.PHONY: docker-build
docker-build: ## Build the manager image.
	$(CONTAINER_TOOL) build -t ${IMG} .

.PHONY: docker-push
docker-push: ## Push the manager image.
	$(CONTAINER_TOOL) push ${IMG}

.PHONY: build-installer
build-installer: manifests kustomize ## Write one dist/install.yaml with the CRD and the deployment (IMG=...).
	mkdir -p dist
	$(call with-image,"$(KUSTOMIZE)" build config/default > dist/install.yaml)

##@ Deployment

ignore-not-found ?= false

.PHONY: install
install: manifests kustomize ## Install the CRD into the cluster of the current kubeconfig.
	"$(KUSTOMIZE)" build config/crd | "$(KUBECTL)" apply --server-side -f -

.PHONY: uninstall
uninstall: manifests kustomize ## Remove the CRD (ignore-not-found=true to ignore missing objects).
	"$(KUSTOMIZE)" build config/crd | "$(KUBECTL)" delete --ignore-not-found=$(ignore-not-found) -f -

.PHONY: deploy
deploy: manifests kustomize ## Deploy the controller (IMG=...) to the cluster of the current kubeconfig.
	$(call with-image,"$(KUSTOMIZE)" build config/default | "$(KUBECTL)" apply --server-side -f -)

# undeploy keeps the namespace: it is Koordinator's (see hack/drop-namespaces.sh).
.PHONY: undeploy
undeploy: kustomize ## Remove the controller and the CRD, but not the namespace (ignore-not-found=true to ignore missing objects).
	"$(KUSTOMIZE)" build config/default | hack/drop-namespaces.sh | "$(KUBECTL)" delete --ignore-not-found=$(ignore-not-found) -f -

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

# v5.8.3 and later need Go 1.27; this project builds with Go 1.26.
KUSTOMIZE_VERSION ?= v5.8.1
CONTROLLER_TOOLS_VERSION ?= v0.23.0
ENVTEST_VERSION ?= v0.25.1
GOLANGCI_LINT_VERSION ?= v2.15.0

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

# go-install-tool installs package $(2) at version $(3) as $(1)-$(3) and links $(1) to it.
define go-install-tool
@[ -f "$(1)-$(3)" ] && [ "$$(readlink -- "$(1)" 2>/dev/null)" = "$(1)-$(3)" ] || { \
set -e; \
package=$(2)@$(3) ;\
echo "Installing $${package}" ;\
rm -f "$(1)" ;\
GOBIN="$(LOCALBIN)" go install $${package} ;\
mv "$(LOCALBIN)/$$(basename "$(1)")" "$(1)-$(3)" ;\
} ;\
ln -sf "$(1)-$(3)" "$(1)"
endef
