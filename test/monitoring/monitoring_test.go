// Package monitoring checks the Grafana dashboard (config/grafana) and the
// alerts (config/prometheus/prometheusrule.yaml) against a live manager:
// every metric a query names, and every label value it matches on, must be
// on the manager's /metrics once it has reconciled something, or, for
// kube-apiserver's own metrics, on the control plane's.
package monitoring

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	sloapi "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/manager/managertest"
	"github.com/nodeslo/nodeslo-controller/test/alertrules"
	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
	"github.com/nodeslo/nodeslo-controller/test/localcluster"
	"github.com/nodeslo/nodeslo-controller/test/testkit"
)

func TestMonitoring(t *testing.T) {
	envtestharness.RunSuite(t, "Dashboard and Alerts Suite")
}

var repoRoot = envtestharness.RepoPath()

// query is one PromQL expression and where it comes from, for messages.
type query struct {
	source string // e.g. `dashboard nodeslo-controller.json, panel "Work queue depth"`
	expr   string
}

// exported is what a manager's /metrics holds: for each sample name
// (histograms give _bucket, _sum and _count), the label sets of its series.
type exported map[string][]map[string]string

// sources is what each exporter the queries read exposes.
type sources struct {
	manager, apiserver exported
}

// kubeAPIServerPrefix starts the names of kube-apiserver's own metrics: an
// alert watches its count of the webhook's calls that failed open, which
// the manager cannot see. They are checked against the control plane's
// /metrics, every other metric against the manager's.
const kubeAPIServerPrefix = "apiserver_"

// targetLabels are added by Prometheus when it scrapes, not by the manager.
var targetLabels = []string{"job", "instance", "namespace", "pod", "service", "endpoint", "container"}

// literalAlternatives matches a regular expression that is only words
// joined by |, such as "nodeslo|config-cache": each word is checked.
var literalAlternatives = regexp.MustCompile(`^[A-Za-z0-9_.:-]+(\|[A-Za-z0-9_.:-]+)*$`)

// problems lists, for every query, each metric its exporter does not export
// and each label value no exported series of that metric carries.
func problems(queries []query, have sources) []string {
	var out []string
	for _, q := range queries {
		sels, err := selectorsIn(q.expr)
		if err != nil {
			out = append(out, fmt.Sprintf("%s: cannot read %q: %v", q.source, q.expr, err))
			continue
		}
		if len(sels) == 0 {
			out = append(out, fmt.Sprintf("%s: %q names no metric", q.source, q.expr))
		}
		for _, s := range sels {
			exporter, exports := "the manager", have.manager
			if strings.HasPrefix(s.metric, kubeAPIServerPrefix) {
				exporter, exports = "kube-apiserver", have.apiserver
			}
			series, ok := exports[s.metric]
			if !ok {
				out = append(out, fmt.Sprintf("%s names metric %s, which %s does not export", q.source, s.metric, exporter))
				continue
			}
			for _, m := range s.matchers {
				if slices.Contains(targetLabels, m.label) || (m.op != "=" && m.op != "=~") ||
					!literalAlternatives.MatchString(m.value) {
					continue
				}
				for v := range strings.SplitSeq(m.value, "|") {
					if !slices.ContainsFunc(series, func(l map[string]string) bool { return l[m.label] == v }) {
						out = append(out, fmt.Sprintf("%s matches %s{%s=%q}, but no series %s exports has it",
							q.source, s.metric, m.label, v, exporter))
					}
				}
			}
		}
	}
	return out
}

// sampleNames returns the names a family's samples are exposed under.
func sampleNames(f *dto.MetricFamily) []string {
	name := f.GetName()
	switch f.GetType() {
	case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
		return []string{name + "_bucket", name + "_sum", name + "_count"}
	case dto.MetricType_SUMMARY:
		return []string{name, name + "_sum", name + "_count"}
	default:
		return []string{name}
	}
}

// parseMetrics reads a /metrics page in the text format.
func parseMetrics(page string) (exported, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(page))
	if err != nil {
		return nil, err
	}
	have := exported{}
	for _, f := range families {
		for _, name := range sampleNames(f) {
			var series []map[string]string
			for _, m := range f.GetMetric() {
				labels := map[string]string{}
				for _, l := range m.GetLabel() {
					labels[l.GetName()] = l.GetValue()
				}
				series = append(series, labels)
			}
			have[name] = series
		}
	}
	return have, nil
}

// grafanaDashboard is the part of a dashboard that holds queries.
type grafanaDashboard struct {
	Panels     []grafanaPanel `json:"panels"`
	Templating struct {
		List []struct {
			Name  string          `json:"name"`
			Type  string          `json:"type"`
			Query json.RawMessage `json:"query"`
		} `json:"list"`
	} `json:"templating"`
}

type grafanaPanel struct {
	Title   string         `json:"title"`
	Panels  []grafanaPanel `json:"panels"`
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
}

// labelValues is Grafana's label_values(SELECTOR, LABEL) variable query.
var labelValues = regexp.MustCompile(`^label_values\((.+),\s*[A-Za-z_][A-Za-z0-9_]*\)$`)

// dashboardQueries returns every query of the dashboards in config/grafana:
// panel targets and the selectors of label_values variables.
func dashboardQueries() []query {
	files, err := filepath.Glob(filepath.Join(repoRoot, "config", "grafana", "*.json"))
	Expect(err).NotTo(HaveOccurred())
	Expect(files).NotTo(BeEmpty())
	var out []query
	for _, file := range files {
		raw, err := os.ReadFile(file)
		Expect(err).NotTo(HaveOccurred())
		var d grafanaDashboard
		Expect(json.Unmarshal(raw, &d)).To(Succeed(), file)
		var walk func([]grafanaPanel)
		walk = func(panels []grafanaPanel) {
			for _, p := range panels {
				for _, t := range p.Targets {
					out = append(out, query{source: fmt.Sprintf("dashboard %s, panel %q", filepath.Base(file), p.Title),
						expr: t.Expr})
				}
				walk(p.Panels)
			}
		}
		walk(d.Panels)
		for _, v := range d.Templating.List {
			if v.Type != "query" {
				continue
			}
			var q struct {
				Query string `json:"query"`
			}
			Expect(json.Unmarshal(v.Query, &q)).To(Succeed(), "variable %s", v.Name)
			m := labelValues.FindStringSubmatch(q.Query)
			Expect(m).NotTo(BeNil(), "variable %s: %q is not label_values(SELECTOR, LABEL)", v.Name, q.Query)
			out = append(out, query{source: fmt.Sprintf("dashboard %s, variable %s", filepath.Base(file), v.Name),
				expr: m[1]})
		}
	}
	return out
}

// alertQueries returns the expression of every alert of the PrometheusRule.
func alertQueries() []query {
	alerts, err := alertrules.Read()
	Expect(err).NotTo(HaveOccurred())
	out := make([]query, 0, len(alerts))
	for _, a := range alerts {
		out = append(out, query{source: "alert " + a.Name, expr: a.Expr})
	}
	return out
}

// apiserverMetrics reads the control plane's /metrics as its administrator.
func apiserverMetrics(ctx context.Context, g Gomega, cfg *rest.Config) string {
	clientset, err := kubernetes.NewForConfig(cfg)
	g.Expect(err).NotTo(HaveOccurred())
	page, err := clientset.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	g.Expect(err).NotTo(HaveOccurred())
	return string(page)
}

func getMetrics(g Gomega, addr string) string {
	resp, err := http.Get("http://" + addr + "/metrics") //nolint:noctx // polled by Eventually
	g.Expect(err).NotTo(HaveOccurred())
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
	return string(body)
}

var _ = Describe("The dashboard and the alerts", func() {
	It("name only metrics and label values a manager exports once it has reconciled", func(ctx SpecContext) {
		env := envtestharness.Start(envtestharness.Options{Webhook: true})
		cfg, c := env.Admin, env.Client

		By("a ConfigMap with a node strategy, written while the webhook does not answer yet, and a Node")
		// The apiserver calls the webhook of config/webhook before the
		// manager serves it: the call fails and, as failurePolicy Ignore
		// says, the write is admitted unchecked, which kube-apiserver
		// counts under the webhook's name.
		opts := managertest.Options()
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: opts.Controllers.ConfigNamespace}}
		Expect(c.Create(ctx, ns)).To(Succeed())
		Expect(c.Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: opts.Controllers.ConfigName},
			Data: map[string]string{
				"resource-threshold-config": `{"clusterStrategy": {"enable": true}, "nodeStrategies": [
					{"name": "monitoring", "nodeSelector": {"matchLabels": {"pool": "monitoring"}}}]}`,
			},
		})).To(Succeed())
		Expect(c.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{
			Name: "monitoring-1", Labels: map[string]string{"pool": "monitoring"},
		}})).To(Succeed())

		By("the manager as deployed: leader election on, metrics and the webhook served")
		var err error
		opts.MetricsBindAddress, err = localcluster.FreeLocalAddress()
		Expect(err).NotTo(HaveOccurred())
		opts.SecureMetrics = false
		opts.LeaderElection = true
		opts.LeaderElectionNamespace = ns.Name
		// The metric check below queries a listener on loopback: a check
		// without credentials reaches only the allowed hosts.
		opts.Controllers.MetricGate.AllowedHosts = "127.0.0.1"
		opts.Webhook.Enable = true
		opts.Webhook.Host, opts.Webhook.Port, opts.Webhook.CertDir = env.WebhookServing()
		opts.Logger = zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)) // shown when the spec fails
		running, err := managertest.Start(cfg, opts)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { Expect(running.Stop()).To(Succeed()) })

		// Longer than the default: the first NodeSLO waits for the whole start
		// of a manager under -race (leader election, caches, first reconcile).
		Eventually(func(g Gomega) {
			if exited, err := running.Exited(); exited {
				StopTrying(fmt.Sprintf("the manager stopped: %v", err)).Now()
			}
			g.Expect(c.Get(ctx, types.NamespacedName{Name: "monitoring-1"}, &sloapi.NodeSLO{})).To(Succeed())
		}).WithTimeout(60 * time.Second).Should(Succeed())
		By("an invalid key, which the webhook denies, and a staged rollout under a metric check, " +
			"so that the check's measurements are counted")
		// The measurement counter has series only once a check was measured:
		// a change of the one node's value, rolled out under a health gate
		// with one metric check, measured on a server that answers as
		// Prometheus's query API does.
		prometheus := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w,
				`{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1700000000,"0"]}]}}`)
		}))
		DeferCleanup(prometheus.Close)
		cm := &corev1.ConfigMap{}
		Expect(c.Get(ctx, types.NamespacedName{Namespace: ns.Name, Name: opts.Controllers.ConfigName}, cm)).To(Succeed())
		Eventually(func() error {
			conn, err := net.Dial("tcp", net.JoinHostPort(opts.Webhook.Host, strconv.Itoa(opts.Webhook.Port)))
			if err == nil {
				_ = conn.Close()
			}
			return err
		}).Should(Succeed(), "the webhook is served")
		invalid := cm.DeepCopy()
		invalid.Data["cpu-burst-config"] = `{"clusterStrategy": {"cpuBurstPercent": 0}}`
		Expect(c.Update(ctx, invalid)).To(MatchError(ContainSubstring("cpu-burst-config")), "the webhook denies it")
		// The strategy first, on the NodeSLORollout of the ConfigMap's name,
		// and taken up by the controller (its status observed its
		// generation) before the change: read in the other order, the
		// change would reach the node at once, with no check to measure.
		rolloutName := types.NamespacedName{Namespace: ns.Name, Name: opts.Controllers.ConfigName}
		testkit.SetStrategy(ctx, c, rolloutName, fmt.Sprintf(`{"maxNodesPerStep": 1, "healthGate": {"metrics": [
			{"name": "dashboard", "address": %q, "query": "vector(0)", "max": 1, "intervalSeconds": 1}]}}`, prometheus.URL))
		Eventually(func(g Gomega) {
			obj := &nodeslov1alpha1.NodeSLORollout{}
			g.Expect(c.Get(ctx, rolloutName, obj)).To(Succeed())
			g.Expect(obj.Status.ObservedGeneration).To(Equal(obj.Generation))
		}).Should(Succeed(), "the controller took up the strategy")
		cm.Data["resource-threshold-config"] = `{"clusterStrategy": {"enable": true, "cpuSuppressThresholdPercent": 60},
			"nodeStrategies": [{"name": "monitoring", "nodeSelector": {"matchLabels": {"pool": "monitoring"}}}]}`
		Expect(c.Update(ctx, cm)).To(Succeed())

		// A reconcile's duration is observed after it returns, so the
		// rollout controller's may come after the first NodeSLO: the
		// queries are checked until every one has its series, and a query
		// that never gets one fails the spec with the list of problems.
		By("every query of the dashboard and the alerts")
		queries := append(dashboardQueries(), alertQueries()...)
		var have sources
		Eventually(func(g Gomega) {
			page := getMetrics(g, opts.MetricsBindAddress)
			g.Expect(page).To(ContainSubstring(`nodeslo_reconcile_total{operation="create",result="success"} 1`))
			g.Expect(page).To(ContainSubstring(
				`nodeslo_strategy_nodes{key="resource-threshold-config",strategy="monitoring"} 1`))
			g.Expect(page).To(MatchRegexp(`leader_election_master_status\{name="[^"]+"\} 1`))
			g.Expect(page).To(MatchRegexp(`nodeslo_rollout_metric_measurements_total\{check="dashboard",result="pass"\} [1-9]`))
			var err error
			have.manager, err = parseMetrics(page)
			g.Expect(err).NotTo(HaveOccurred())
			have.apiserver, err = parseMetrics(apiserverMetrics(ctx, g, cfg))
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(problems(queries, have)).To(BeEmpty())
		}).Should(Succeed())

		By("and the check does fail on a misspelt metric, controller or webhook name")
		Expect(problems([]query{
			{source: `panel "typo"`, expr: `sum(rate(nodeslo_reconciles_total[5m]))`},
			{source: `panel "renamed"`, expr: `workqueue_depth{name=~"nodeslo|configcache"}`},
			{source: `alert "manager's"`, expr: `apiserver_admission_webhook_fail_open_count{name="nodeslo"}`},
			{source: `alert "total"`, expr: `apiserver_admission_webhook_fail_open_total`},
		}, have)).To(Equal([]string{
			`panel "typo" names metric nodeslo_reconciles_total, which the manager does not export`,
			`panel "renamed" matches workqueue_depth{name="configcache"}, but no series the manager exports has it`,
			`alert "manager's" matches apiserver_admission_webhook_fail_open_count{name="nodeslo"}, ` +
				`but no series kube-apiserver exports has it`,
			`alert "total" names metric apiserver_admission_webhook_fail_open_total, which kube-apiserver does not export`,
		}))
	})
})

var _ = DescribeTable("selectorsIn reads the selectors of an expression",
	func(expr string, want []selector) {
		Expect(selectorsIn(expr)).To(Equal(want))
	},
	Entry("aggregation with grouping, function, range", `sum by (le) (rate(a_bucket{job=~"$job"}[$__rate_interval]))`,
		[]selector{{metric: "a_bucket", matchers: []matcher{{"job", "=~", "$job"}}}}),
	Entry("grouping after the aggregation, binary operators, vector matching",
		`sum(a) without (x, y) / on (instance) group_left (z) b > bool 3 and c offset 5m unless d @ start()`,
		[]selector{{metric: "a"}, {metric: "b"}, {metric: "c"}, {metric: "d"}}),
	Entry("a function of time and a bare number", `time() - process_start_time_seconds > 3600`,
		[]selector{{metric: "process_start_time_seconds"}}),
	Entry("several matchers, strings with commas and braces, a subquery",
		`max_over_time(m{a="x,y}", b!="", c!~'z'}[1h:5m])`,
		[]selector{{metric: "m", matchers: []matcher{{"a", "=", "x,y}"}, {"b", "!=", ""}, {"c", "!~", "z"}}}}),
	Entry("__name__ as a matcher", `{__name__="m", k="v"}`,
		[]selector{{metric: "m", matchers: []matcher{{"k", "=", "v"}}}}),
	Entry("a function's string arguments", `label_replace(m, "dst", "$1", "src", "(.*)")`,
		[]selector{{metric: "m"}}),
)

var _ = DescribeTable("selectorsIn refuses what it cannot read",
	func(expr string) {
		_, err := selectorsIn(expr)
		Expect(err).To(HaveOccurred())
	},
	Entry("an unterminated string", `m{a="x}`),
	Entry("a matcher without a quoted value", `m{a=x}`),
	Entry("an unclosed range", `rate(m[5m)`),
	Entry("a selector without a metric name", `{a="b"}`),
	Entry("a character PromQL does not have", `m ; n`),
)
