package webhook_test

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/nodeslo/nodeslo-controller/test/testkit"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/nodeslo/nodeslo-controller/internal/plugin"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/internal/webhook"
)

// putConfig creates or replaces the configured ConfigMap with data and
// returns the apiserver's answer; the ConfigMap is deleted when the test
// ends.
func putConfig(ctx context.Context, data map[string]string) error {
	return putConfigMap(ctx, configNamespace, configName, data, nil)
}

// again alternates the trailing space putConfigAgain adds.
var again bool

// putConfigAgain puts data as putConfig does, as a change of the data stored
// by the call before, so that the webhook checks it: an update that leaves
// the data as stored is admitted unchecked. It adds a space, every other
// call, to the value of data's first key, which changes no warning.
func putConfigAgain(ctx context.Context, data map[string]string) error {
	again = !again
	changed := maps.Clone(data)
	if again {
		first := slices.Min(slices.Collect(maps.Keys(changed)))
		changed[first] += " "
	}
	return putConfig(ctx, changed)
}

// putConfigMap creates or replaces a ConfigMap's data and binaryData.
func putConfigMap(ctx context.Context, namespace, name string, data map[string]string, binary map[string][]byte) error {
	cm := &corev1.ConfigMap{}
	err := k8sClient.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, cm)
	if apierrors.IsNotFound(err) {
		cm = &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
			Data:       data, BinaryData: binary,
		}
		err = k8sClient.Create(ctx, cm)
		if err == nil {
			DeferCleanup(deleteConfigMap, namespace, name)
		}
		return err
	}
	Expect(err).NotTo(HaveOccurred())
	cm.Data, cm.BinaryData = data, binary
	return k8sClient.Update(ctx, cm)
}

// deleteConfigMap deletes a ConfigMap if it exists; the configured one is
// annotated first, as an operator would, since the webhook refuses to
// delete it otherwise.
func deleteConfigMap(ctx context.Context, namespace, name string) {
	cm := &corev1.ConfigMap{}
	err := k8sClient.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, cm)
	if apierrors.IsNotFound(err) {
		return
	}
	Expect(err).NotTo(HaveOccurred())
	if namespace == configNamespace && name == configName {
		Expect(annotateAllowDelete(ctx, cm, "true")).To(Succeed())
	}
	Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, cm))).To(Succeed())
}

// annotateAllowDelete sets the annotation that allows deleting cm to value,
// changing nothing else (kubectl annotate --overwrite).
func annotateAllowDelete(ctx context.Context, cm *corev1.ConfigMap, value string) error {
	patch := client.MergeFrom(cm.DeepCopy())
	metav1.SetMetaDataAnnotation(&cm.ObjectMeta, sloconfig.AllowDeleteAnnotation, value)
	return k8sClient.Patch(ctx, cm, patch)
}

// nodeCount is the number of Nodes the apiserver holds now.
func nodeCount(ctx context.Context) int {
	list := &corev1.NodeList{}
	Expect(k8sClient.List(ctx, list)).To(Succeed())
	return len(list.Items)
}

// validateLines is what `kubectl nodeslo validate` prints for data: its
// error lines and its warning lines (without "warning: ").
func validateLines(data map[string]string) (errs, warns []string) {
	var out, errOut bytes.Buffer
	plugin.Validate(data, &out, &errOut)
	return lines(out.String()), lines(strings.ReplaceAll(errOut.String(), "warning: ", ""))
}

func lines(s string) []string {
	var out []string
	for l := range strings.SplitSeq(strings.TrimSpace(s), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// webhookCalls counts the admission requests the webhook server answered.
func webhookCalls() float64 {
	families, err := metrics.Registry.Gather()
	Expect(err).NotTo(HaveOccurred())
	sum := 0.0
	for _, f := range families {
		if f.GetName() != "controller_runtime_webhook_requests_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "webhook" && l.GetValue() == webhook.Path {
					sum += m.GetCounter().GetValue()
				}
			}
		}
	}
	return sum
}

// createNodes creates n Nodes with labels, deleted again when the test ends,
// and returns their names.
func createNodes(ctx context.Context, n int, labels map[string]string) []string {
	return testkit.Names(testkit.CreateNodes(ctx, k8sClient, n, labels, nil))
}
