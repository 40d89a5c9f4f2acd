//go:build e2e

package e2e

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/api/scheme"
	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// leaderTestNodes is how many Nodes the change must reach: enough that it
// takes the leader a few seconds at its request rate, so that it can be
// killed in the middle.
const leaderTestNodes = 500

// The leader takes over only when the Lease expires: give it the lease
// duration and more.
const takeover = 90 * time.Second

var _ = Describe("two managers with leader election", func() {
	It("the non-leader writes nothing; the leader SIGKILLed mid-change is replaced; every NodeSLO ends correct", func() {
		// The checks of this spec poll hundreds of NodeSLOs several times a
		// second, as the administrator but through a client rather than
		// kubectl, to time the takeover closely and keep the log readable.
		admin, err := client.New(cluster.Admin, client.Options{Scheme: scheme.New()})
		Expect(err).NotTo(HaveOccurred())

		By("a ConfigMap with a known cpu-burst-config and 500 more Nodes")
		withLeaderTestNodes(admin)
		generations := map[string]int64{}
		for _, slo := range leaderTestSLOs(Default, admin) {
			generations[slo.Name] = slo.Generation
		}

		By("a second manager, started while the first leads")
		leaderIdentity := leaseHolder(Default, admin)
		Expect(leaderIdentity).NotTo(BeEmpty())
		leader := manager
		scraper := newMetricsScraper("leader-test-scraper")
		standby := startStandby(scraper)

		By("changing the ConfigMap, and SIGKILLing the leader once it wrote some NodeSLOs but not all")
		setCPUBurstPercent(leaderTestPercent)
		var reachedBeforeKill int
		Eventually(func(g Gomega) {
			reachedBeforeKill = changedIn(leaderTestSLOs(g, admin))
			g.Expect(reachedBeforeKill).To(BeNumerically(">", 0))
		}).WithPolling(50 * time.Millisecond).Should(Succeed())
		leader.Kill()
		killed := time.Now()

		By("the second manager had written nothing: its controllers never ran")
		metrics := scraper.scrape(Default, standby)
		Expect(metricValue(metrics, `leader_election_master_status{name="`+leaseName+`"}`)).To(Equal(0.0))
		Expect(sumOf(metrics, "nodeslo_reconcile_total{")).To(Equal(0.0), "NodeSLO reconciles")
		for _, method := range []string{"PUT", "PATCH", "DELETE"} {
			Expect(sumOf(metrics, "rest_client_requests_total{", `method="`+method+`"`)).To(Equal(0.0),
				"%s requests (POSTs are its TokenReviews of the scrapes)", method)
		}

		// Read after the scrape, and until two reads half a second apart
		// agree, so that the writes the leader had in flight when it died
		// have landed (on a busy machine one landed after a single read);
		// until the takeover, seconds later, nothing else writes.
		reachedAtKill := changedIn(leaderTestSLOs(Default, admin))
		Eventually(func(g Gomega) int {
			previous := reachedAtKill
			reachedAtKill = changedIn(leaderTestSLOs(g, admin))
			return reachedAtKill - previous
		}).WithPolling(500*time.Millisecond).Should(BeZero(), "the dead leader's writes still landing")
		Expect(reachedAtKill).To(BeNumerically("<", leaderTestNodes),
			"the leader finished the change before it was killed: nothing left to take over")

		By("the second manager takes the Lease over and finishes the change")
		Eventually(func(g Gomega) {
			g.Expect(leaseHolder(g, admin)).NotTo(BeElementOf("", leaderIdentity))
		}).WithTimeout(takeover).WithPolling(100 * time.Millisecond).Should(Succeed())
		holding := time.Since(killed)
		manager = standby // the suite's other specs and its cleanup use the leader
		Eventually(func(g Gomega) {
			g.Expect(changedIn(leaderTestSLOs(g, admin))).To(Equal(leaderTestNodes))
		}).WithPolling(100 * time.Millisecond).Should(Succeed())
		correct := time.Since(killed)

		By("every NodeSLO changed exactly once: none lost, none written twice")
		for _, slo := range leaderTestSLOs(Default, admin) {
			Expect(slo.Generation).To(Equal(generations[slo.Name]+1), slo.Name)
		}
		metrics = scraper.scrape(Default, standby)
		Expect(metricValue(metrics, `leader_election_master_status{name="`+leaseName+`"}`)).To(Equal(1.0))
		Expect(metricValue(metrics, `nodeslo_reconcile_total{operation="update",result="success"}`)).
			To(BeNumerically(">=", leaderTestNodes-reachedAtKill))

		figure := fmt.Sprintf("leader SIGKILLed with %d of %d NodeSLOs written (lease settings as deployed: %s): "+
			"the other held the Lease after %.1fs, every NodeSLO correct after %.1fs",
			reachedAtKill, leaderTestNodes, deployedLeaseArgsText(), holding.Seconds(), correct.Seconds())
		AddReportEntry("leader takeover", figure)
		GinkgoWriter.Println(figure)
	})
})

// startStandby starts a second manager as the deployed ServiceAccount,
// with a token of its own, and waits until it runs leader election
// (scraped with scraper).
func startStandby(scraper *metricsScraper) *managerProcess {
	GinkgoHelper()
	token := kube.mustRun("create", "token", serviceAccount, "-n", namespace, "--duration=2h")
	kubeconfig, err := cluster.TokenKubeconfig(token)
	Expect(err).NotTo(HaveOccurred())
	kubeconfigPath := filepath.Join(GinkgoT().TempDir(), "second-manager.kubeconfig")
	Expect(os.WriteFile(kubeconfigPath, kubeconfig, 0o600)).To(Succeed())
	standby := startManager(filepath.Join(root, "bin", "manager"), kubeconfigPath)
	Eventually(func(g Gomega) {
		g.Expect(standby.Running()).To(BeTrue(), "the second manager exited; its log is above")
		g.Expect(scraper.scrape(g, standby)).To(ContainSubstring("leader_election_master_status"))
	}).Should(Succeed())
	return standby
}

// withLeaderTestNodes applies leaderTestNodes Nodes with the ConfigMap's
// cpu-burst-config at cpuBurstPercent 200, waits until each has its
// NodeSLO with it, and deletes them when the spec ends.
func withLeaderTestNodes(admin client.Client) {
	GinkgoHelper()
	kube.mustRun("apply", "--server-side", "--force-conflicts",
		"-f", filepath.Join(root, "config", "samples", "slo-controller-config.yaml"))
	DeferCleanup(func() {
		// Give the key back to the samples' field manager for the other specs.
		kube.mustRun("apply", "--server-side", "--force-conflicts",
			"-f", filepath.Join(root, "config", "samples", "slo-controller-config.yaml"))
	})
	setCPUBurstPercent(200)
	_, err := kube.runWithInput(leaderTestNodeList(), "apply", "--server-side", "-f", "-")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		kube.mustRun("delete", "nodes", "-l", "leader-test=true", "--wait=false")
		// Once a second: each look lists hundreds of NodeSLOs.
		Eventually(func(g Gomega) {
			g.Expect(leaderTestSLOs(g, admin)).To(BeEmpty())
		}).WithPolling(time.Second).Should(Succeed())
	})
	Eventually(func(g Gomega) {
		slos := leaderTestSLOs(g, admin)
		g.Expect(slos).To(HaveLen(leaderTestNodes))
		for _, slo := range slos {
			g.Expect(cpuBurstPercent(slo)).To(Equal(int64(200)), slo.Name)
		}
	}).WithPolling(time.Second).Should(Succeed())
}

// setCPUBurstPercent sets the cpu-burst-config key (its own field manager,
// forced) to a cluster strategy with the given cpuBurstPercent.
func setCPUBurstPercent(percent int) {
	GinkgoHelper()
	value := fmt.Sprintf(`{"clusterStrategy": {"policy": "auto", "cpuBurstPercent": %d}}`, percent)
	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: configMapName, Namespace: namespace},
		Data:       map[string]string{"cpu-burst-config": value},
	}
	_, err := kube.runWithInput(toJSON(cm),
		"apply", "--server-side", "--force-conflicts", "--field-manager=leader-test", "-f", "-")
	Expect(err).NotTo(HaveOccurred())
}

// leaderTestNodeList is leaderTestNodes Nodes labelled leader-test=true, as one List.
func leaderTestNodeList() string {
	list := &corev1.NodeList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}}
	for i := range leaderTestNodes {
		list.Items = append(list.Items, corev1.Node{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
			ObjectMeta: metav1.ObjectMeta{
				Name: fmt.Sprintf("leader-test-%03d", i), Labels: map[string]string{"leader-test": "true"},
			},
		})
	}
	return toJSON(list)
}

// leaderTestSLOs returns the NodeSLOs of the leader-test Nodes.
func leaderTestSLOs(g Gomega, c client.Client) []slov1alpha1.NodeSLO {
	list := &slov1alpha1.NodeSLOList{}
	g.Expect(c.List(context.Background(), list)).To(Succeed())
	return slices.DeleteFunc(list.Items, func(s slov1alpha1.NodeSLO) bool {
		return !strings.HasPrefix(s.Name, "leader-test-")
	})
}

func cpuBurstPercent(slo slov1alpha1.NodeSLO) int64 {
	if slo.Spec.CPUBurstStrategy == nil || slo.Spec.CPUBurstStrategy.CPUBurstPercent == nil {
		return -1
	}
	return *slo.Spec.CPUBurstStrategy.CPUBurstPercent
}

// leaderTestPercent is the cpuBurstPercent the spec's change sets.
const leaderTestPercent = 321

// changedIn counts the NodeSLOs that have the change (leaderTestPercent).
func changedIn(slos []slov1alpha1.NodeSLO) int { return countAt(slos, leaderTestPercent) }

// leaseHolder reads the holderIdentity of the leader-election Lease.
func leaseHolder(g Gomega, c client.Client) string {
	lease := &coordinationv1.Lease{}
	g.Expect(c.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: leaseName}, lease)).To(Succeed())
	return holderOf(&lease.Spec)
}

// deployedLeaseArgs returns the --leader-elect-* flags of the deployed
// manager, so that the managers of the suite run with the same Lease timings.
func deployedLeaseArgs() []string {
	GinkgoHelper()
	var d struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct{ Args []string }
				}
			}
		}
	}
	Expect(json.Unmarshal([]byte(kube.mustRun("get", "deployment", deployment, "-n", namespace, "-o", "json")), &d)).
		To(Succeed())
	var args []string
	for _, c := range d.Spec.Template.Spec.Containers {
		for _, arg := range c.Args {
			if strings.HasPrefix(arg, "--leader-elect-") {
				args = append(args, arg)
			}
		}
	}
	return args
}

func deployedLeaseArgsText() string {
	if args := deployedLeaseArgs(); len(args) > 0 {
		return strings.Join(args, " ")
	}
	return "the defaults"
}

// metricsScraper reads a manager's HTTPS metrics with the token of a
// ServiceAccount bound to the metrics-reader ClusterRole.
type metricsScraper struct {
	token  string
	client *http.Client
}

func newMetricsScraper(name string) *metricsScraper {
	GinkgoHelper()
	kube.mustRun("create", "serviceaccount", name, "-n", namespace)
	kube.mustRun("create", "clusterrolebinding", name,
		"--clusterrole=nodeslo-controller-metrics-reader", "--serviceaccount="+namespace+":"+name)
	DeferCleanup(func() {
		kube.mustRun("delete", "clusterrolebinding", name)
		kube.mustRun("delete", "serviceaccount", name, "-n", namespace)
	})
	return &metricsScraper{
		token: strings.TrimSpace(kube.mustRun("create", "token", name, "-n", namespace)),
		client: &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
			TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // self-signed, local test
		}},
	}
}

// scrape returns the text of p's /metrics.
func (s *metricsScraper) scrape(g Gomega, p *managerProcess) string {
	req, err := http.NewRequest(http.MethodGet, "https://"+p.metricsAddr+"/metrics", nil)
	g.Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := s.client.Do(req)
	g.Expect(err).NotTo(HaveOccurred())
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(resp.StatusCode).To(Equal(http.StatusOK), string(body))
	return string(body)
}

// metricValue returns the value of the sample written exactly as series
// (name and labels in the exposition's order), or -1 when there is none.
func metricValue(text, series string) float64 {
	for line := range strings.Lines(text) {
		if value, ok := strings.CutPrefix(strings.TrimSpace(line), series+" "); ok {
			v, err := strconv.ParseFloat(value, 64)
			Expect(err).NotTo(HaveOccurred(), line)
			return v
		}
	}
	return -1
}

// sumOf adds the samples whose line starts with prefix and contains every
// one of labels.
func sumOf(text, prefix string, labels ...string) float64 {
	sum := 0.0
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, prefix) || slices.ContainsFunc(labels, func(l string) bool {
			return !strings.Contains(line, l)
		}) {
			continue
		}
		fields := strings.Fields(line)
		v, err := strconv.ParseFloat(fields[len(fields)-1], 64)
		Expect(err).NotTo(HaveOccurred(), line)
		sum += v
	}
	return sum
}
