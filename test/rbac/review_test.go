package rbac_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nodeslo/nodeslo-controller/test/testkit"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/manager/managertest"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/test/localcluster"
)

// The nodes of the review: review-warned carries an invalid bandwidth
// annotation, so that the NodeSLO controller records Warning Events on it.
var reviewNodes = []*corev1.Node{
	{ObjectMeta: metav1.ObjectMeta{Name: "review-1"}},
	{ObjectMeta: metav1.ObjectMeta{Name: "review-2"}},
	{ObjectMeta: metav1.ObjectMeta{Name: "review-warned",
		Annotations: map[string]string{sloconfig.NetworkBandwidthAnnotation: "lots"}}},
}

// The scenario walks every path of the manager that calls the apiserver
// (ContinueOnFailure: a step that fails for want of a permission still
// lets the last It list the denied requests);
// each It names the calls it is there for. The last It stops the manager
// and compares the audit log with the grants.
var _ = Describe("the manager's requests against config/rbac", Ordered, ContinueOnFailure, func() {
	var (
		ctx         = context.Background()
		stopManager func()
		metricsAddr string
		injector    = &conflictInjector{}
	)

	BeforeAll(func() {
		for _, n := range reviewNodes {
			Expect(k8sClient.Create(ctx, n.DeepCopy())).To(Succeed())
		}
		setConfig(ctx, configData(200))
		injector.admin = k8sClient
		cfg := *managerConfig
		cfg.Wrap(injector.wrap)
		metricsAddr, stopManager = startManager(&cfg)
	})

	It("creates NodeSLOs and records Warning Events on a Node (cache list/watch, create, Events)", func() {
		waitForCPUBurstPercent(ctx, 200, len(reviewNodes))
		Eventually(func(g Gomega) {
			g.Expect(eventsAbout(g, ctx, "review-warned", "InvalidNetworkBandwidth")).NotTo(BeEmpty())
		}).Should(Succeed())
	})

	It("updates NodeSLOs after a change, and reads past the cache when another writer got in first "+
		"(update, get; an Event series patched on the unchanged Node)", func() {
		injector.arm()
		setConfig(ctx, configData(300))
		waitForCPUBurstPercent(ctx, 300, len(reviewNodes))
		Expect(injector.result()).To(Succeed())
		Eventually(func(g Gomega) {
			events := eventsAbout(g, ctx, "review-warned", "InvalidNetworkBandwidth")
			g.Expect(events).To(HaveLen(1))
			g.Expect(events[0].Series).NotTo(BeNil(), "the repeated warning joins a series")
		}).Should(Succeed())
	})

	It("records a Warning Event about an invalid key on the ConfigMap", func() {
		setConfig(ctx, configData(300,
			sloconfig.KeyResourceThreshold, `{"clusterStrategy": {"cpuSuppressThresholdPercent": 150}}`))
		Eventually(func(g Gomega) {
			events := &eventsv1.EventList{}
			g.Expect(k8sClient.List(ctx, events, client.InNamespace(configNamespace))).To(Succeed())
			g.Expect(events.Items).To(ContainElement(HaveField("Reason", "InvalidConfig")))
		}).Should(Succeed())
	})

	It("rolls a change out in steps, its record and status kept on the NodeSLORollout (create, "+
		"status patch), and keeps the revision history (ControllerRevisions: list, create, patch, delete)", func() {
		// A history of one: the change's revision replaces the one before.
		setConfig(ctx, configData(400, sloconfig.KeyRollout,
			`{"maxNodesPerStep": 1, "stepIntervalSeconds": 0, "revisionHistoryLimit": 1}`))
		waitForCPUBurstPercent(ctx, 400, len(reviewNodes))
		Eventually(func(g Gomega) {
			obj := &nodeslov1alpha1.NodeSLORollout{}
			g.Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: configNamespace, Name: configName}, obj)).
				To(Succeed())
			g.Expect(obj.Status.RolloutRecord).NotTo(BeNil())
			g.Expect(obj.Status.Phase).To(BeEquivalentTo(rollout.PhaseCompleted))
			revisions := &appsv1.ControllerRevisionList{}
			g.Expect(k8sClient.List(ctx, revisions, client.InNamespace(configNamespace))).To(Succeed())
			g.Expect(revisions.Items).To(ConsistOf(HaveField("ObjectMeta.Annotations",
				HaveKeyWithValue("nodeslo.koordinator.sh/outcome", string(rollout.OutcomeCompleted)))))
		}).Should(Succeed())
	})

	It("judges a rollout under a health gate: watches the Nodes' conditions, and no Pod (no namespace is listed)", func() {
		setConfig(ctx, configData(300, sloconfig.KeyRollout,
			`{"maxNodesPerStep": 1, "stepIntervalSeconds": 0, "revisionHistoryLimit": 1, "healthGate": {}}`))
		waitForCPUBurstPercent(ctx, 300, len(reviewNodes))
	})

	It("deletes the NodeSLO of a deleted Node (delete)", func() {
		Expect(k8sClient.Delete(ctx, reviewNodes[0].DeepCopy())).To(Succeed())
		Eventually(func() error {
			return k8sClient.Get(ctx, client.ObjectKey{Name: reviewNodes[0].Name}, &slov1alpha1.NodeSLO{})
		}).Should(Satisfy(func(err error) bool {
			return client.IgnoreNotFound(err) == nil && err != nil
		}))
	})

	It("serves metrics only to a client the apiserver authorises (TokenReview, SubjectAccessReview)", func() {
		scraper := metricsScraper(ctx)
		Eventually(func(g Gomega) {
			g.Expect(scrape(g, scraper, metricsAddr)).To(Equal(http.StatusOK))
		}).Should(Succeed())
	})

	It("used every permission config/rbac grants it, was denied nothing and never touched a Secret", func() {
		By("stopping the manager, which releases its Lease")
		stopManager()

		events, err := readAuditLog(auditLog, managerUser)
		Expect(err).NotTo(HaveOccurred())
		Expect(events).NotTo(BeEmpty(), "the audit log has no request of %s", managerUser)
		grants, err := grantsOf(ctx, k8sClient, systemNamespace, serviceAccount)
		Expect(err).NotTo(HaveOccurred())
		Expect(grants).NotTo(BeEmpty())

		var denied, ungranted, secrets []string
		var used []permission
		for _, e := range events {
			if e.ResponseStatus != nil && e.ResponseStatus.Code == http.StatusForbidden {
				denied = append(denied, e.String())
			}
			p, ok := e.permission()
			if !ok {
				continue
			}
			used = append(used, p)
			if strings.HasPrefix(p.Resource, "secrets") {
				secrets = append(secrets, e.String())
			}
			if !grantedBy(grants, p) {
				ungranted = append(ungranted, fmt.Sprintf("%s (%s)", p, e))
			}
		}
		// Every grant must be seen in use, the informers' list grants too:
		// they list before they watch (--watch-list-client is off by
		// default, docs/deploy.md#flags).
		var unused []string
		for _, g := range grants {
			if !usedGrant(used, g.permission) && !slices.Contains(notProvoked, g.permission) {
				unused = append(unused, fmt.Sprintf("%s (%s)", g.permission, g.Role))
			}
		}
		GinkgoWriter.Printf("%d audited requests of %s; %d grants\n", len(events), managerUser, len(grants))
		Expect(denied).To(BeEmpty(), "requests denied (403): a permission is missing from config/rbac")
		Expect(ungranted).To(BeEmpty(), "requests config/rbac does not grant (allowed by a default role?)")
		Expect(unused).To(BeEmpty(), "grants no request used: remove them from the rbac markers or "+
			"config/rbac, or add a request that uses them to the review")
		Expect(secrets).To(BeEmpty(), "requests about Secrets")
		for _, g := range grants {
			Expect(g.Resource).NotTo(HavePrefix("secrets"), "%s grants access to Secrets", g.Role)
		}
	})
})

// notProvoked are grants the code uses that no step of the review can
// provoke: client-go's recorder patches an Event about the ConfigMap into a
// series only when the same Event repeats for one version of the ConfigMap
// (a CRD-skew recheck, say), which no step can time. Each is still in
// codesUse, the list config/rbac must match exactly.
var notProvoked = []permission{{patch, eventsGroup, events, configNamespace, ""}}

func grantedBy(grants []grant, p permission) bool {
	return slices.ContainsFunc(grants, func(g grant) bool { return g.covers(p) })
}

func usedGrant(used []permission, g permission) bool {
	return slices.ContainsFunc(used, g.covers)
}

// startManager starts the manager as cmd/ builds it, with leader election
// and HTTPS metrics as deployed; it returns the metrics address and a
// function that stops it and waits until it released its Lease.
func startManager(cfg *rest.Config) (string, func()) {
	GinkgoHelper()
	metricsAddr, err := localcluster.FreeLocalAddress()
	Expect(err).NotTo(HaveOccurred())
	opts := managertest.Options()
	opts.MetricsBindAddress = metricsAddr
	opts.LeaderElection = true
	opts.LeaderElectionNamespace = systemNamespace
	running, err := managertest.Start(cfg, opts)
	Expect(err).NotTo(HaveOccurred())
	stop := func() { Expect(running.Stop()).To(Succeed()) }
	DeferCleanup(stop)
	return metricsAddr, stop
}

// configData is the ConfigMap's data: cpuBurstPercent for every node, a
// bandwidth for the annotation to override, and more keys as key, value pairs.
func configData(cpuBurstPercent int, more ...any) map[string]string {
	data := map[string]string{
		string(sloconfig.KeyCPUBurst): fmt.Sprintf(
			`{"clusterStrategy": {"policy": "auto", "cpuBurstPercent": %d}}`, cpuBurstPercent),
		string(sloconfig.KeySystem): `{"clusterStrategy": {"totalNetworkBandwidth": "10G"}}`,
	}
	for i := 0; i+1 < len(more); i += 2 {
		data[string(more[i].(sloconfig.Key))] = more[i+1].(string)
	}
	return data
}

// setConfig writes the ConfigMap's data, creating it the first time.
func setConfig(ctx context.Context, data map[string]string) {
	GinkgoHelper()
	key := client.ObjectKey{Namespace: configNamespace, Name: configName}
	// The strategy first, read by the controller (status.observedGeneration)
	// before the ConfigMap changes: the controller sees the two objects
	// apart, and a change it meets before its strategy goes at once.
	data, policy := testkit.SplitPolicy(data)
	before := &nodeslov1alpha1.NodeSLORollout{}
	existed := k8sClient.Get(ctx, key, before) == nil
	testkit.SetStrategy(ctx, k8sClient, key, policy)
	if existed {
		Eventually(func(g Gomega) {
			obj := &nodeslov1alpha1.NodeSLORollout{}
			g.Expect(k8sClient.Get(ctx, key, obj)).To(Succeed())
			g.Expect(obj.Status.ObservedGeneration).To(Equal(obj.Generation), "the controller read the strategy")
		}).Should(Succeed())
	}
	testkit.WriteConfigMap(ctx, k8sClient, key, data)
}

// waitForCPUBurstPercent waits until n NodeSLOs exist, all with percent.
func waitForCPUBurstPercent(ctx context.Context, percent int64, n int) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		list := &slov1alpha1.NodeSLOList{}
		g.Expect(k8sClient.List(ctx, list)).To(Succeed())
		g.Expect(list.Items).To(HaveLen(n))
		for _, slo := range list.Items {
			g.Expect(slo.Spec.CPUBurstStrategy).NotTo(BeNil())
			g.Expect(slo.Spec.CPUBurstStrategy.CPUBurstPercent).To(HaveValue(Equal(percent)), slo.Name)
		}
	}).Should(Succeed())
}

// eventsAbout returns the events.k8s.io Events of reason about Node name.
func eventsAbout(g Gomega, ctx context.Context, name, reason string) []eventsv1.Event {
	list := &eventsv1.EventList{}
	g.Expect(k8sClient.List(ctx, list)).To(Succeed())
	var out []eventsv1.Event
	for _, e := range list.Items {
		if e.Regarding.Kind == "Node" && e.Regarding.Name == name && e.Reason == reason {
			out = append(out, e)
		}
	}
	return out
}

// metricsScraper returns a client config of a ServiceAccount bound to the
// metrics-reader ClusterRole of config/rbac, as Prometheus would be.
func metricsScraper(ctx context.Context) *rest.Config {
	GinkgoHelper()
	const name = "metrics-scraper"
	Expect(k8sClient.Create(ctx, &corev1.ServiceAccount{
		ObjectMeta: metav1.ObjectMeta{Namespace: systemNamespace, Name: name}})).To(Succeed())
	Expect(k8sClient.Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "metrics-reader"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: systemNamespace, Name: name}},
	})).To(Succeed())
	return tokenConfig(systemNamespace, name)
}

// scrape reads /metrics of the manager at addr with scraper's token.
func scrape(g Gomega, scraper *rest.Config, addr string) int {
	req, err := http.NewRequest(http.MethodGet, "https://"+addr+"/metrics", nil)
	g.Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Authorization", "Bearer "+scraper.BearerToken)
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // the manager's self-signed certificate
	}}
	resp, err := c.Do(req)
	g.Expect(err).NotTo(HaveOccurred())
	defer func() { _ = resp.Body.Close() }()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// conflictInjector plays another writer: once armed, it changes the NodeSLO
// the manager is about to update, just before the update reaches the
// apiserver, so that the update conflicts and the manager reads the Node and
// the NodeSLO again past its cache (internal/controller/nodeslo_controller.go).
type conflictInjector struct {
	admin client.Client
	mu    sync.Mutex
	armed bool
	fired bool
	err   error
}

func (c *conflictInjector) arm() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.armed, c.fired, c.err = true, false, nil
}

// result says whether the injector changed a NodeSLO since it was armed.
func (c *conflictInjector) result() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.err != nil:
		return c.err
	case !c.fired:
		return fmt.Errorf("no NodeSLO update went through the injector")
	}
	return nil
}

func (c *conflictInjector) wrap(rt http.RoundTripper) http.RoundTripper {
	return localcluster.RoundTripperFunc(func(req *http.Request) (*http.Response, error) {
		if req.Method == http.MethodPut && strings.HasPrefix(req.URL.Path, "/apis/slo.koordinator.sh/v1alpha1/nodeslos/") {
			c.mu.Lock()
			if c.armed {
				c.armed = false
				c.fired = true
				c.err = c.touch(req.Context(), path.Base(req.URL.Path))
			}
			c.mu.Unlock()
		}
		return rt.RoundTrip(req)
	})
}

// touch changes the NodeSLO name's labels, as another writer would.
func (c *conflictInjector) touch(ctx context.Context, name string) error {
	slo := &slov1alpha1.NodeSLO{}
	if err := c.admin.Get(ctx, client.ObjectKey{Name: name}, slo); err != nil {
		return err
	}
	if slo.Labels == nil {
		slo.Labels = map[string]string{}
	}
	slo.Labels["rbac-review/touched"] = "true"
	return c.admin.Update(ctx, slo)
}
