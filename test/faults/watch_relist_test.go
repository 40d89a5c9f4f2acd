//go:build faults

package faults_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
	"github.com/nodeslo/nodeslo-controller/test/faultproxy"
	"github.com/nodeslo/nodeslo-controller/test/faults"
	"github.com/nodeslo/nodeslo-controller/test/localcluster"
	"github.com/nodeslo/nodeslo-controller/test/testkit"
)

// The fault of the relist scenario: every watch of the manager stalled for
// relistStall, while relistDeleted Nodes are deleted and the first
// relistRecreated of them created again under the same names, the first
// relistRelabelled of those in another pool.
const (
	relistStall      = 90 * time.Second
	relistDeleted    = 20
	relistRecreated  = 10
	relistRelabelled = 5
	// relistRegistering is how long a re-created Node reports Ready=False
	// before Ready=True, as a kubelet registering again does.
	relistRegistering = 3 * time.Second
)

// The manager's watches stall for 90 s during a staged rollout under a
// health gate on Ready, while 20 Nodes are deleted and 10 of them created
// again with the same names (5 in another pool, so that their spec
// changes), a kubelet's re-registration each (Ready=False, then True);
// then etcd is compacted, so that the watches' resumption is answered
// 410 Gone and the caches list again (docs/behaviour.md#faults). At every
// look, during the stall as after it: the rollout's rules over the nodes
// left alone (canaries first, no step beyond its size, no node written
// twice or back), no NodeSLO of a re-created node deleted (its UID stays),
// no node written more than its labels and the change call for, no halt.
// After it: the Node caches listed again, every NodeSLO as resolved for
// the Nodes that exist (the deleted ones' gone), each node written once
// for the change and once more when its labels changed the spec, and the
// rollout complete within its schedule plus 30 s of the stall's end.
var _ = Describe("watches stalled while Nodes are deleted and re-created, then etcd compacted",
	Serial, Label(scenarioLabel), func() {
		It("lists again, keeps the rollout's rules meanwhile, and writes each node as its labels and the change say",
			func(ctx SpecContext) {
				lists := &nodeLists{}
				writes := startManagerOn(proxiedManager, nil, lists.wrap)
				from, to := faults.Version(64), faults.Version(65)
				before := settle(ctx, from)
				canaries := markCanaries(ctx)
				churn := churnOf(fleet.Names())
				after := churn.fleetAfter(fleet)
				want, err := after.Expected(to)
				Expect(err).NotTo(HaveOccurred())
				churn.expectRelabelsChangeSpecs(from, to)
				startRollout(ctx, nodeslov1alpha1.RolloutStrategy{
					MaxNodesPerStep:     new(intstr.FromInt32(flakyStepSize)),
					StepIntervalSeconds: ptr.To(int32(flakyStepInterval / time.Second)),
					Canary:              canariesSoaked(flakySoak),
					HealthGate:          &nodeslov1alpha1.HealthGateStrategy{NodeConditions: []string{"Ready"}},
				})
				uids := nodeSLOUIDs(ctx)

				writes.Reset()
				audited := managerNodeSLOWrites()
				start := time.Now()
				testkit.WriteConfigMap(ctx, k8sClient, client.ObjectKey{Namespace: configNamespace, Name: configName}, to)
				look := flakyLook{before: before.Of(churn.untouched), canaries: canaries,
					target: sloconfig.Load(to, nil).Fingerprint(), others: len(churn.untouched) - len(canaries), unseen: relistDeleted,
					lastStart: start}
				churnLook := churnLook{churn: churn, before: before, uids: uids}
				lookOnce := func(g Gomega) {
					started := time.Now()
					meta := nodeSLOMeta(ctx)
					churnLook.check(meta)
					look.check(g, started, meta.generations(churn.untouched), rolloutStatus(ctx))
				}

				By("stalling every watch of the manager once the canaries are written")
				Eventually(func(g Gomega) {
					lookOnce(g)
					g.Expect(look.canariesAt).NotTo(BeZero(), "the canaries written")
				}).WithContext(ctx).WithTimeout(converge).WithPolling(poll).Should(Succeed())
				resumeFrom := nodesResourceVersion(ctx)
				stallStart := time.Now()
				stalls := stallWatches(stallStart)
				dropped := proxy.DropConnections()
				Eventually(func(g Gomega) {
					lookOnce(g)
					g.Expect(stalls.nodes.Faulted()).To(BeNumerically(">", 0), "a Node watch stalled")
				}).WithContext(ctx).WithTimeout(10 * time.Second).WithPolling(poll).Should(Succeed())

				By("deleting 20 Nodes, creating 10 again (5 relabelled), and compacting etcd, during the stall")
				churn.apply(ctx, lookOnce)
				compacted, err := cluster.CompactEtcd(ctx)
				Expect(err).NotTo(HaveOccurred())
				expectGone(ctx, resumeFrom)
				churned := time.Now()
				Expect(churned.Sub(stallStart)).To(BeNumerically("<", relistStall/2),
					"the churn took too long to happen during the stall")
				stallEnd := stallStart.Add(relistStall)
				Eventually(func(g Gomega) {
					lookOnce(g)
					g.Expect(time.Now()).To(BeTemporally(">", stallEnd), "the stall over")
				}).WithContext(ctx).WithTimeout(relistStall + converge).WithPolling(poll).Should(Succeed())
				look.reachedUnderFaults, look.stepsUnderFaults = len(look.reached), len(look.stepsSeen)

				By("the rollout going on once the watches are back")
				var done time.Time
				Eventually(func(g Gomega) {
					lookOnce(g)
					g.Expect(look.reached).To(HaveLen(len(churn.untouched)), "every node left alone written")
					done = time.Now()
				}).WithContext(ctx).WithTimeout(flakySchedule + 2*flakyGrace).WithPolling(poll).Should(Succeed())
				deadline := stallEnd.Add(time.Duration(flakySteps-look.stepsUnderFaults) * flakyStepInterval)
				if look.canariesAt.Add(flakySchedule).After(deadline) {
					deadline = look.canariesAt.Add(flakySchedule)
				}
				Eventually(func(g Gomega) {
					g.Expect(rolloutStatus(ctx).Phase).To(Equal(rollout.PhaseCompleted))
				}).WithContext(ctx).WithTimeout(flakyGrace).WithPolling(poll).Should(Succeed())
				final, _ := convergedAndQuiet(ctx, want)
				churnLook.check(nodeSLOMeta(ctx))
				for name, stored := range final {
					Expect(stored.Generation-before[name].Generation).To(Equal(int64(churn.writesOf(name))),
						"node %s: writes", name)
				}
				// Lists after the churn come from the watches' end: those at
				// the dropped connections came before it.
				relists := lists.since(churned)
				Expect(relists).To(BeNumerically(">", 0), "no Node cache listed again after the 410")

				succeeded, _, failed := writes.Totals()
				gone := 0 // the requests to the NodeSLOs of the Nodes that stayed deleted, their deletes included
				for _, name := range churn.deleted[relistRecreated:] {
					gone += writes.Succeeded(name)
				}
				specWrites := 0
				for name := range final {
					specWrites += churn.writesOf(name)
				}
				// On the server: the spec writes the nodes that exist call
				// for, and what the client saw succeed for the others.
				expectAuditedWrites(audited, specWrites+gone)
				late, latest := look.lateness()
				figure("watches stalled 90 s while Nodes were deleted and re-created, then etcd compacted",
					"%d nodes, %d canaries, steps of %d; %d connections dropped, %d Node and %d other watches "+
						"stalled; %d Nodes deleted, %d created again (%d relabelled) %s into the stall; etcd "+
						"compacted at revision %d; Node lists after the stall's 410: %d; every node %s after the "+
						"change (%s after the stall ended, the deadline %s later); %d nodes reached during the "+
						"stall; steps seen begun %v after the change, later than their schedule by %v (largest "+
						"%s); NodeSLO write requests: %d succeeded (%d of them to the %d NodeSLOs of Nodes that stayed deleted, "+
						"their deletes included), %d failed",
					fleetSize, len(canaries), flakyStepSize, dropped, stalls.nodes.Faulted(), stalls.others.Faulted(),
					relistDeleted, relistRecreated, relistRelabelled, seconds(churned.Sub(stallStart)), compacted,
					relists, seconds(done.Sub(start)), seconds(done.Sub(stallEnd)),
					seconds(deadline.Add(flakyGrace).Sub(done)), look.reachedUnderFaults, since(start, look.stepsSeen),
					late, seconds(latest), succeeded, gone, relistDeleted-relistRecreated, failed)
				Expect(done).To(BeTemporally("<=", deadline.Add(flakyGrace)),
					"completed within %s of the later of its schedule's end and the stall's (plus an interval for "+
						"each step not begun by then)", flakyGrace)
			})
	})

// churn is which Nodes the relist scenario deletes, creates again and
// relabels: relistDeleted of the nodes that are not canaries, spread over
// the fleet so that some are reached before the stall, some in it and
// some after.
type churn struct {
	deleted, recreated, relabelled, untouched []string
}

// churnOf picks the churn from the fleet's names (the canaries first).
func churnOf(names []string) churn {
	var c churn
	spread := (len(names) - flakyCanaries) / relistDeleted
	for k := range relistDeleted {
		c.deleted = append(c.deleted, names[flakyCanaries+k*spread])
	}
	c.recreated = c.deleted[:relistRecreated]
	c.relabelled = c.recreated[:relistRelabelled]
	for _, name := range names {
		if !slices.Contains(c.deleted, name) {
			c.untouched = append(c.untouched, name)
		}
	}
	return c
}

// nextPool is the pool a relabelled node moves to: each move changes the
// node's spec under every configuration version (expectRelabelsChangeSpecs).
var nextPool = map[string]string{"general": "colo", "colo": "online", "online": "bulk", "bulk": "general"}

// node returns the fleet's Node name as the churn creates it again.
func (c churn) node(f *faults.Fleet, name string) *corev1.Node {
	i := slices.Index(f.Names(), name)
	node := f.Nodes[i].DeepCopy()
	if slices.Contains(c.relabelled, name) {
		node.Labels["node-pool"] = nextPool[node.Labels["node-pool"]]
	}
	return node
}

// fleetAfter is the fleet once the churn is done.
func (c churn) fleetAfter(f *faults.Fleet) *faults.Fleet {
	out := &faults.Fleet{}
	for _, name := range f.Names() {
		if !slices.Contains(c.deleted, name) || slices.Contains(c.recreated, name) {
			out.Nodes = append(out.Nodes, *c.node(f, name))
		}
	}
	return out
}

// expectRelabelsChangeSpecs checks that moving the relabelled nodes to
// their new pool changes their spec under both versions, so that each is
// written for its labels and again for the change.
func (c churn) expectRelabelsChangeSpecs(from, to map[string]string) {
	GinkgoHelper()
	after := c.fleetAfter(fleet)
	for _, data := range []map[string]string{from, to} {
		was, now := expected(data), testkit.Must(after.Expected(data))
		for _, name := range c.relabelled {
			Expect(sloconfig.SpecEqual(was[name], now[name])).To(BeFalse(), "relabelling %s changes nothing", name)
		}
	}
}

// writesOf is how many writes the change and the churn call for on a
// node: the change reaches every node once, and a relabelled node is
// written for its new labels too (on the configuration in force for it
// then: docs/rollout.md#behaviour, "a pending node whose labels ...
// change"), whenever the manager learns of them.
func (c churn) writesOf(name string) int {
	if slices.Contains(c.relabelled, name) {
		return 2
	}
	return 1
}

// apply deletes the churn's Nodes and creates some again, each reporting
// Ready=False for relistRegistering and then Ready=True, looking at the
// NodeSLOs between the steps. It restores the fleet when the spec ends.
func (c churn) apply(ctx context.Context, look func(Gomega)) {
	GinkgoHelper()
	DeferCleanup(func(ctx SpecContext) { c.restore(ctx) })
	for _, name := range c.deleted {
		Expect(k8sClient.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}})).To(Succeed())
	}
	look(Default)
	for _, name := range c.recreated {
		node := c.node(fleet, name)
		Expect(k8sClient.Create(ctx, node)).To(Succeed())
		setReady(ctx, name, corev1.ConditionFalse, time.Now())
	}
	registered := time.Now().Add(relistRegistering)
	Eventually(func(g Gomega) {
		look(g)
		g.Expect(time.Now()).To(BeTemporally(">", registered))
	}).WithContext(ctx).WithTimeout(converge).WithPolling(poll).Should(Succeed())
	for _, name := range c.recreated {
		setReady(ctx, name, corev1.ConditionTrue, time.Now())
	}
}

// restore puts the fleet back as the suite made it: the deleted Nodes
// created again and the relabelled ones in their pool.
func (c churn) restore(ctx context.Context) {
	GinkgoHelper()
	for _, name := range c.deleted {
		original := fleet.Nodes[slices.Index(fleet.Names(), name)].DeepCopy()
		node := &corev1.Node{}
		err := k8sClient.Get(ctx, client.ObjectKey{Name: name}, node)
		if apierrors.IsNotFound(err) {
			Expect(k8sClient.Create(ctx, original)).To(Succeed())
			continue
		}
		Expect(err).NotTo(HaveOccurred())
		patch := client.MergeFrom(node.DeepCopy())
		node.Labels["node-pool"] = original.Labels["node-pool"]
		Expect(k8sClient.Patch(ctx, node, patch)).To(Succeed())
	}
}

// churnLook checks, at each look, what the churn must never cause: a
// re-created node's NodeSLO deleted (its UID changes or it is gone), or a
// churned node written more often than writesOf allows.
type churnLook struct {
	churn  churn
	before faults.State
	uids   map[string]types.UID
}

func (l churnLook) check(meta nodeSLOs) {
	for _, name := range l.churn.deleted {
		m, ok := meta[name]
		switch {
		case slices.Contains(l.churn.recreated, name) && (!ok || m.UID != l.uids[name]):
			StopTrying(fmt.Sprintf("the NodeSLO of %s, a Node created again, was deleted", name)).Now()
		case !ok:
			continue // a deleted Node's NodeSLO, deleted
		case m.Generation-l.before[name].Generation > int64(l.churn.writesOf(name)):
			StopTrying(fmt.Sprintf("node %s written %d times", name, m.Generation-l.before[name].Generation)).Now()
		}
	}
}

// nodeSLOs is the NodeSLOs' metadata, by name.
type nodeSLOs map[string]metav1.PartialObjectMetadata

// nodeSLOMeta lists the NodeSLOs' metadata.
func nodeSLOMeta(ctx context.Context) nodeSLOs {
	GinkgoHelper()
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(slov1alpha1.GroupVersion.WithKind("NodeSLOList"))
	Expect(k8sClient.List(ctx, list)).To(Succeed())
	out := make(nodeSLOs, len(list.Items))
	for _, o := range list.Items {
		out[o.Name] = o
	}
	return out
}

// generations are the generations of the named NodeSLOs that exist.
func (m nodeSLOs) generations(names []string) map[string]int64 {
	out := make(map[string]int64, len(names))
	for _, name := range names {
		if o, ok := m[name]; ok {
			out[name] = o.Generation
		}
	}
	return out
}

// nodeSLOUIDs are the NodeSLOs' UIDs, by name.
func nodeSLOUIDs(ctx context.Context) map[string]types.UID {
	GinkgoHelper()
	out := map[string]types.UID{}
	for name, o := range nodeSLOMeta(ctx) {
		out[name] = o.UID
	}
	return out
}

// nodesResourceVersion is the Nodes' resourceVersion now: no older than
// any the manager's Node caches resume their watches from after the stall.
func nodesResourceVersion(ctx context.Context) string {
	GinkgoHelper()
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("NodeList"))
	Expect(k8sClient.List(ctx, list, client.Limit(1))).To(Succeed())
	return list.ResourceVersion
}

// expectGone checks that a watch of the Nodes from resourceVersion is
// answered 410 Gone, as the manager's will be when the stall ends: etcd
// was compacted past it, and the suite's kube-apiserver serves Node
// watches from etcd (no watch cache for nodes: suite_test.go).
func expectGone(ctx context.Context, resourceVersion string) {
	GinkgoHelper()
	cs, err := kubernetes.NewForConfig(cluster.Admin)
	Expect(err).NotTo(HaveOccurred())
	w, err := cs.CoreV1().Nodes().Watch(ctx, metav1.ListOptions{ResourceVersion: resourceVersion})
	if err == nil {
		defer w.Stop()
		var e watch.Event
		Eventually(w.ResultChan()).WithTimeout(10 * time.Second).Should(Receive(&e))
		Expect(e.Type).To(Equal(watch.Error), "a watch from before the compaction went on")
		err = apierrors.FromObject(e.Object)
	}
	Expect(apierrors.IsResourceExpired(err) || apierrors.IsGone(err)).To(BeTrue(),
		"a watch from before the compaction: %v", err)
}

// watchStalls are the rules that stall the manager's watches: its Node
// watches counted apart from the others.
type watchStalls struct {
	nodes, others *faultproxy.ActiveRule
}

// stallWatches stalls, then ends without an error, every watch the
// manager opens within the next 10 s (DropConnections makes it open them
// all again): it watches again from where it was, and is told 410 Gone.
func stallWatches(now time.Time) watchStalls {
	GinkgoHelper()
	user := serviceaccount.MakeUsername(envtestharness.SystemNamespace, envtestharness.ServiceAccountName)
	add := func(resource string) *faultproxy.ActiveRule {
		active, err := proxy.Add(faultproxy.Rule{
			Match: faultproxy.Match{Verbs: []string{faultproxy.VerbWatch}, Resource: resource, User: user},
			Fault: faultproxy.StallWatchThenEnd(relistStall), From: now, Until: now.Add(10 * time.Second),
		})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(active.Remove)
		return active
	}
	return watchStalls{nodes: add("nodes"), others: add("")}
}

// nodeLists counts the manager's lists of Nodes (not its watches), with
// when each was sent.
type nodeLists struct {
	mu    sync.Mutex
	times []time.Time
}

// wrap counts on the manager's transport.
func (l *nodeLists) wrap(rt http.RoundTripper) http.RoundTripper {
	return localcluster.RoundTripperFunc(func(req *http.Request) (*http.Response, error) {
		if req.Method == http.MethodGet && req.URL.Path == "/api/v1/nodes" && req.URL.Query().Get("watch") == "" {
			l.mu.Lock()
			l.times = append(l.times, time.Now())
			l.mu.Unlock()
		}
		return rt.RoundTrip(req)
	})
}

// since counts the lists sent after t.
func (l *nodeLists) since(t time.Time) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, at := range l.times {
		if at.After(t) {
			n++
		}
	}
	return n
}
