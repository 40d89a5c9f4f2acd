package controller_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/nodeslo/nodeslo-controller/test/testkit"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/controller"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Values several tests share.
const (
	autoBurst = `{"clusterStrategy": {"policy": "auto"}}`
	// suppressAt55 enables BE suppression above 55 % CPU.
	suppressAt55 = `{"clusterStrategy": {"enable": true, "cpuSuppressThresholdPercent": 55}}`
	tierLabel    = "tier"
	gold         = "gold"
)

// Shard labels: make test runs internal/controller's specs as six
// processes at once, each with its own control plane, since they mostly
// wait (SPLIT_SUITES in the Makefile names these labels): the staged
// rollout and its history, its held nodes, the health gate, the metric
// gates, GitOps, and the specs without a label.
const (
	shardRollout = "rollout"
	shardHeld    = "held"
	shardGates   = "gates"
	shardMetrics = "metrics"
	shardGitOps  = "gitops"
)

// uniqueName returns a name no other test uses.
func uniqueName(prefix string) string {
	return fmt.Sprintf("%s-%s", prefix, rand.String(6))
}

// createNode creates a Node that is deleted again when the test ends.
func createNode(ctx context.Context, labels, annotations map[string]string) *corev1.Node {
	node := newNode(ctx, labels, annotations)
	DeferCleanup(deleteNodes, []string{node.Name})
	return node
}

// newNode creates a Node; the caller deletes it (deleteNodes).
func newNode(ctx context.Context, labels, annotations map[string]string) *corev1.Node {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name: uniqueName("node"), Labels: labels, Annotations: annotations,
	}}
	Expect(k8sClient.Create(ctx, node)).To(Succeed())
	return node
}

// deleteNodes deletes the named Nodes, then waits until the controller has
// deleted their NodeSLOs: all at once, as a fleet's 40 nodes one by one
// cost a poll each.
func deleteNodes(ctx SpecContext, names []string) {
	for _, name := range names {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
		Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, node))).To(Succeed())
	}
	Eventually(func(g Gomega) {
		list := &slov1alpha1.NodeSLOList{}
		g.Expect(k8sClient.List(ctx, list)).To(Succeed())
		g.Expect(list.Items).NotTo(ContainElement(HaveField("Name", BeElementOf(names))),
			"the NodeSLOs of deleted Nodes")
	}).WithContext(ctx).Should(Succeed())
}

func getNodeSLO(ctx context.Context, name string, slo *slov1alpha1.NodeSLO) error {
	return k8sClient.Get(ctx, types.NamespacedName{Name: name}, slo)
}

// nodeSLOOf returns a function for Eventually that fetches a node's NodeSLO.
func nodeSLOOf(ctx context.Context, name string) func() (*slov1alpha1.NodeSLO, error) {
	return func() (*slov1alpha1.NodeSLO, error) {
		slo := &slov1alpha1.NodeSLO{}
		err := getNodeSLO(ctx, name, slo)
		return slo, err
	}
}

// specOf fetches a node's NodeSLO spec as generic JSON, so that tests can
// say what the wire format holds without leaning on the Go types.
func specOf(ctx context.Context, name string) func() (map[string]any, error) {
	return func() (map[string]any, error) {
		slo := &slov1alpha1.NodeSLO{}
		if err := getNodeSLO(ctx, name, slo); err != nil {
			return nil, err
		}
		raw, err := json.Marshal(slo.Spec)
		if err != nil {
			return nil, err
		}
		var spec map[string]any
		return spec, json.Unmarshal(raw, &spec)
	}
}

// field digs a value out of generic JSON by path (object keys and list
// indexes); nil when any step is missing.
func field(spec map[string]any, path ...string) any {
	var cur any = spec
	for _, p := range path {
		switch v := cur.(type) {
		case map[string]any:
			cur = v[p]
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(v) {
				return nil
			}
			cur = v[i]
		default:
			return nil
		}
	}
	return cur
}

// haveField matches generic JSON whose value at path equals want (nil: is absent).
func haveField(want any, path ...string) OmegaMatcher {
	m := Equal(want)
	if want == nil {
		m = BeNil()
	}
	return WithTransform(func(spec map[string]any) any { return field(spec, path...) }, m)
}

// setConfig creates or replaces the ConfigMap's data and waits until the
// controller has decided on it (the NodeSLORollout's status says so), so
// that what a spec does next meets the configuration it set; it is
// deleted again when the test ends (back to defaults). It returns the
// ConfigMap.
func setConfig(ctx context.Context, data map[string]string) *corev1.ConfigMap {
	_, policy := testkit.SplitPolicy(data)
	setStrategy(ctx, policy)
	cm := writeConfig(ctx, data)
	Eventually(func(g Gomega) {
		obj := rolloutObject0()
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(cm), obj)).To(Succeed())
		g.Expect(obj.Status.ObservedConfigMapVersion).To(Equal(cm.ResourceVersion))
	}).Should(Succeed(), "the controller did not take up the ConfigMap")
	return cm
}

// setStrategy sets the NodeSLORollout's strategy as testkit.SetStrategy
// does and, when that changed an existing one, waits until the controller
// has read it (status.observedGeneration): the ConfigMap a spec writes
// next must meet the strategy meant for it. The controller sees the two
// objects apart, so whoever changes both at once (docs/rollout.md#gitops-argo-cd-flux)
// must apply the strategy first.
func setStrategy(ctx context.Context, policy string) {
	key := types.NamespacedName{Namespace: configNamespace, Name: configName}
	before := &nodeslov1alpha1.NodeSLORollout{}
	if err := k8sClient.Get(ctx, key, before); err != nil {
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "reading NodeSLORollout %s: %v", key, err)
	}
	testkit.SetStrategy(ctx, k8sClient, key, policy)
	Eventually(func(g Gomega) {
		obj := &nodeslov1alpha1.NodeSLORollout{}
		g.Expect(k8sClient.Get(ctx, key, obj)).To(Succeed())
		if obj.Generation != before.Generation {
			g.Expect(obj.Status.ObservedGeneration).To(Equal(obj.Generation), "the controller read the strategy")
		}
	}).Should(Succeed())
}

// writeConfig is setConfig without the wait, for a manager that is stopped.
func writeConfig(ctx context.Context, data map[string]string) *corev1.ConfigMap {
	cm, created := testkit.SetConfig(ctx, k8sClient, client.ObjectKey{Namespace: configNamespace, Name: configName}, data)
	if created {
		DeferCleanup(forgetConfig)
	}
	return cm
}

// forgetConfig deletes the ConfigMap and then its NodeSLORollout, so that
// the next spec starts without this one's strategy and rollout record (its
// halts above all). It waits until the controller saw the ConfigMap gone
// first: an older reconcile cannot write the record into the next spec's
// NodeSLORollout, which is another object.
func forgetConfig(ctx context.Context) {
	deleteConfig(ctx)
	key := types.NamespacedName{Namespace: configNamespace, Name: configName}
	old := &nodeslov1alpha1.NodeSLORollout{}
	if err := k8sClient.Get(ctx, key, old); apierrors.IsNotFound(err) {
		return
	}
	Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, key, old)).To(Succeed())
		g.Expect(old.Status.ObservedGeneration).To(Equal(old.Generation))
		g.Expect(old.Status.ObservedConfigMapVersion).To(BeEmpty(), "the controller saw the ConfigMap deleted")
	}).Should(Succeed())
	Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, old))).To(Succeed())
	Eventually(func() bool {
		return apierrors.IsNotFound(k8sClient.Get(ctx, key, &nodeslov1alpha1.NodeSLORollout{}))
	}).Should(BeTrue())
}

func deleteConfig(ctx context.Context) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: configNamespace, Name: configName}}
	Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, cm))).To(Succeed())
}

// warningEvents returns the notes of the Warning Events with reason recorded
// about the object with uid.
func warningEvents(ctx context.Context, namespace string, uid types.UID, reason string) func() ([]string, error) {
	return func() ([]string, error) {
		list := &eventsv1.EventList{}
		if err := k8sClient.List(ctx, list, client.InNamespace(namespace)); err != nil {
			return nil, err
		}
		var notes []string
		for _, e := range list.Items {
			if e.Regarding.UID == uid && e.Reason == reason && e.Type == corev1.EventTypeWarning {
				notes = append(notes, e.Note)
			}
		}
		return notes, nil
	}
}

// nodeWarnings returns the notes of the Warning Events with reason on node
// (Events about cluster-scoped objects live in namespace default).
func nodeWarnings(ctx context.Context, node *corev1.Node, reason string) func() ([]string, error) {
	return warningEvents(ctx, metav1.NamespaceDefault, node.UID, reason)
}

// configWarnings returns the notes of the Warning Events with reason on cm.
func configWarnings(ctx context.Context, cm *corev1.ConfigMap, reason string) func() ([]string, error) {
	return warningEvents(ctx, configNamespace, cm.UID, reason)
}

// metricValue reads a counter, a gauge or a histogram's sample count from
// controller-runtime's registry, summing the series whose labels include
// the given ones.
func metricValue(name string, labels map[string]string) float64 {
	families, err := metrics.Registry.Gather()
	Expect(err).NotTo(HaveOccurred())
	sum := 0.0
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if hasLabels(m, labels) {
				sum += m.GetCounter().GetValue() + m.GetGauge().GetValue() + float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return sum
}

// metricSeries returns the label sets of a metric's series.
func metricSeries(name string) []map[string]string {
	families, err := metrics.Registry.Gather()
	Expect(err).NotTo(HaveOccurred())
	var out []map[string]string
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			out = append(out, labels)
		}
	}
	return out
}

func hasLabels(m *dto.Metric, want map[string]string) bool {
	have := map[string]string{}
	for _, l := range m.GetLabel() {
		have[l.GetName()] = l.GetValue()
	}
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}

// reconciles returns the number of NodeSLO reconciles so far (all
// operations, all results).
func reconciles() float64 {
	return metricValue(controller.MetricReconcileTotal, nil)
}

func reconcilesOf(operation string) float64 {
	return metricValue(controller.MetricReconcileTotal, map[string]string{"operation": operation})
}

// configInvalid returns the validity gauge of a ConfigMap key.
func configInvalid(key sloconfig.Key) func() float64 {
	return func() float64 {
		return metricValue(controller.MetricConfigInvalid, map[string]string{"key": string(key)})
	}
}

// settle waits until the controllers hold no request (testkit.Settle).
// restartManager stops the manager, lets the test change the world
// meanwhile, then starts a new one and waits until it has reconciled as
// many names as there are NodeSLOs (every one is reconciled after the
// first load).
func restartManager(ctx SpecContext, meanwhile func()) {
	stopManager()
	writes.Reset()
	meanwhile()
	done := func() float64 { return reconciles() - reconcilesOf(controller.OpSkip) }
	before := done()
	existing := len(allResourceVersions(ctx))
	stopManager = startManager()
	Eventually(func() float64 { return done() - before }).Should(BeNumerically(">=", existing))
}

func settle() { testkit.Settle(controller.Controllers...) }

// skipAndSettle moves the controllers' clock by d and waits until the
// controllers have settled: what a spec then sees is what d of waiting
// would have left. The skip fires the requeues it passes (a soak, a step
// interval, the health gate's next look) and has queued them when it
// returns (testkit.Clock.Skip); when it fired any, the rollout
// controller must look again, and the wait is for that look. A requeue
// the real time fired before the skip is not the skip's: it was queued
// before Skip returned, and settling covers it. Nothing here depends on
// which of the two fired it (docs/testing.md, "The controllers' clock").
func skipAndSettle(d time.Duration) {
	GinkgoHelper()
	before := rolloutReconciles()
	if fired := clock.Skip(d); fired > 0 {
		Eventually(rolloutReconciles).Should(BeNumerically(">", before),
			"the rollout controller did not take up the %d requeue(s) a skip of %s fired", fired, d)
	}
	settle()
}

// holdClock stops the controllers' clock for the rest of the spec: it then
// moves only by the spec's skips, never by the real time a slow machine
// takes between two of the spec's actions.
func holdClock() {
	clock.Hold()
	DeferCleanup(clock.Release)
}

// aSecondALook makes each call of look move the controllers' clock a
// second first: an Eventually over it passes a soak or step intervals at
// its polling pace, and still sees every state on the way.
func aSecondALook[T any](look func() T) func() T {
	return func() T {
		clock.Skip(time.Second)
		return look()
	}
}

// rolloutReconciles is how many times the rollout controller
// reconciled so far.
func rolloutReconciles() float64 {
	return metricValue("controller_runtime_reconcile_total", map[string]string{"controller": controller.RolloutController})
}

// resourceVersions returns the resourceVersion of each named NodeSLO.
func resourceVersions(ctx context.Context, names ...string) map[string]string {
	out := map[string]string{}
	for _, n := range names {
		slo := &slov1alpha1.NodeSLO{}
		Expect(getNodeSLO(ctx, n, slo)).To(Succeed())
		out[n] = slo.ResourceVersion
	}
	return out
}

// allResourceVersions returns the resourceVersion of every NodeSLO.
func allResourceVersions(ctx context.Context) map[string]string {
	list := &slov1alpha1.NodeSLOList{}
	Expect(k8sClient.List(ctx, list)).To(Succeed())
	out := map[string]string{}
	for _, s := range list.Items {
		out[s.Name] = s.ResourceVersion
	}
	return out
}

// configChanges returns how many times the configuration in force changed.
func configChanges() float64 {
	return metricValue(controller.MetricConfigChanges, nil)
}
