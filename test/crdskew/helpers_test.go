package crdskew

import (
	"context"
	"regexp"

	"github.com/nodeslo/nodeslo-controller/test/testkit"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/controller"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/test/alertrules"
)

var configKey = types.NamespacedName{
	Namespace: sloconfig.DefaultConfigMapNamespace, Name: sloconfig.DefaultConfigMapName,
}

// deleteConfig deletes the ConfigMap as an operator must while the
// webhook runs: annotated for it first (docs/behaviour.md#deleting-the-configmap).
func deleteConfig(ctx SpecContext, c client.Client, cm *corev1.ConfigMap) {
	patch := client.MergeFrom(cm.DeepCopy())
	metav1.SetMetaDataAnnotation(&cm.ObjectMeta, sloconfig.AllowDeleteAnnotation, "true")
	Expect(client.IgnoreNotFound(c.Patch(ctx, cm, patch))).To(Succeed())
	Expect(client.IgnoreNotFound(c.Delete(ctx, cm))).To(Succeed())
}

// putConfig creates or replaces the ConfigMap's data through c, waits until
// the manager has put it in force, and returns it: nodes created afterwards
// are written once, under it.
func putConfig(ctx context.Context, c client.Client, data map[string]string) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{}
	err := c.Get(ctx, configKey, cm)
	if apierrors.IsNotFound(err) {
		cm = &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: configKey.Namespace, Name: configKey.Name}, Data: data,
		}
		Expect(c.Create(ctx, cm)).To(Succeed())
		DeferCleanup(deleteConfig, c, cm)
	} else {
		Expect(err).NotTo(HaveOccurred())
		cm.Data = data
		Expect(c.Update(ctx, cm)).To(Succeed())
	}
	inForce := sloconfig.Load(data, nil).Fingerprint()
	Eventually(func() map[string]float64 { return gauge(controller.MetricConfigInfo, "fingerprint") }).
		Should(HaveKeyWithValue(inForce, 1.0), "the configuration put in force")
	return cm
}

// createNodes creates n Nodes through c, deleted again when the container ends.
func createNodes(ctx context.Context, c client.Client, n int) []string {
	return testkit.Names(testkit.CreateNodes(ctx, c, n, nil, nil))
}

// storedSpec returns a function for Eventually that reads a NodeSLO's spec.
func storedSpec(ctx context.Context, c client.Client, name string) func() (*slov1alpha1.NodeSLOSpec, error) {
	return func() (*slov1alpha1.NodeSLOSpec, error) {
		slo := &slov1alpha1.NodeSLO{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, slo); err != nil {
			return nil, err
		}
		return &slo.Spec, nil
	}
}

// pageCacheLimit reads lsClass.memoryQOS.pageCacheLimitPercent (nil: absent).
func pageCacheLimit(spec *slov1alpha1.NodeSLOSpec) *int64 {
	if spec == nil || spec.ResourceQOSStrategy == nil || spec.ResourceQOSStrategy.LSClass == nil ||
		spec.ResourceQOSStrategy.LSClass.MemoryQOS == nil {
		return nil
	}
	return spec.ResourceQOSStrategy.LSClass.MemoryQOS.PageCacheLimitPercent
}

// configEvents returns the notes of the Events of type and reason on cm.
func configEvents(ctx context.Context, cm *corev1.ConfigMap, eventType, reason string) func() ([]string, error) {
	return configEventsOn(ctx, k8sClient, cm, eventType, reason)
}

// configEventsOn is configEvents on the control plane of c.
func configEventsOn(
	ctx context.Context, c client.Client, cm *corev1.ConfigMap, eventType, reason string,
) func() ([]string, error) {
	return func() ([]string, error) {
		list := &eventsv1.EventList{}
		if err := c.List(ctx, list, client.InNamespace(cm.Namespace)); err != nil {
			return nil, err
		}
		var notes []string
		for _, e := range list.Items {
			if e.Regarding.UID == cm.UID && e.Reason == reason && e.Type == eventType {
				notes = append(notes, e.Note)
			}
		}
		return notes, nil
	}
}

// gauge sums the series of a metric of controller-runtime's registry whose
// labels include want, by their label "by" (e.g. key).
func gauge(name, by string) map[string]float64 {
	families, err := metrics.Registry.Gather()
	Expect(err).NotTo(HaveOccurred())
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			value := ""
			for _, l := range m.GetLabel() {
				if l.GetName() == by {
					value = l.GetValue()
				}
			}
			out[value] = max(out[value], m.GetGauge().GetValue()+m.GetCounter().GetValue())
		}
	}
	return out
}

// reconciles counts the NodeSLO reconciles that got past the first load.
func reconciles() float64 {
	total := 0.0
	for op, v := range gauge(controller.MetricReconcileTotal, "operation") {
		if op != controller.OpSkip {
			total += v
		}
	}
	return total
}

// alertExpression returns the expression of an alert of
// config/prometheus/prometheusrule.yaml.
func alertExpression(alert string) string {
	alerts, err := alertrules.Read()
	Expect(err).NotTo(HaveOccurred())
	for _, a := range alerts {
		if a.Name == alert {
			return a.Expr
		}
	}
	Fail("no alert " + alert + " in config/prometheus/prometheusrule.yaml")
	return ""
}

// maxByKeyAboveZero is the one shape of expression evalAlert evaluates
// (namespace is added by the scrape; the manager's series have none).
var maxByKeyAboveZero = regexp.MustCompile(`^max by \(namespace, key\) \((\w+)\) > 0$`)

// evalAlert evaluates the alert's expression over the manager's metrics
// as Prometheus would over one scrape: the keys it fires for. It fails
// when the expression has another shape (the promtool tests in
// test/alerts cover its timing).
func evalAlert(alert string) []string {
	expr := alertExpression(alert)
	m := maxByKeyAboveZero.FindStringSubmatch(expr)
	Expect(m).NotTo(BeNil(), "the expression of %s is %q; evalAlert reads only max by (key) (METRIC) > 0", alert, expr)
	var firing []string
	for key, v := range gauge(m[1], "key") {
		if v > 0 {
			firing = append(firing, key)
		}
	}
	return firing
}
