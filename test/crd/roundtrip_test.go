package crd

import (
	"encoding/json"
	"reflect"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

var _ = Describe("A NodeSLO with every field set", func() {
	It("leaves no field of the API unset in the fixture", func() {
		Expect(unsetFields(reflect.ValueOf(fullySetSpec()), "spec")).To(BeEmpty())
	})

	It("is stored and read back unchanged: the schema prunes nothing", func() {
		written := &slov1alpha1.NodeSLO{
			ObjectMeta: metav1.ObjectMeta{Name: "every-field"},
			Spec:       fullySetSpec(),
		}
		Expect(k8sClient.Create(ctx, written.DeepCopy())).To(Succeed())

		read := &slov1alpha1.NodeSLO{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(written), read)).To(Succeed())
		Expect(equality.Semantic.DeepEqual(read.Spec, written.Spec)).To(BeTrue(),
			"spec changed on the way through the apiserver:\nwrote %s\nread  %s", toJSON(written.Spec), toJSON(read.Spec))
		Expect(toJSON(read.Spec)).To(MatchJSON(toJSON(written.Spec)))
	})

	It("keeps the extensions wire form agents decode, {\"Object\": {...}}", func() {
		nodeSLO := &slov1alpha1.NodeSLO{
			ObjectMeta: metav1.ObjectMeta{Name: "extensions-wire-form"},
			Spec:       slov1alpha1.NodeSLOSpec{Extensions: &slov1alpha1.ExtensionsMap{Object: map[string]any{}}},
		}
		Expect(k8sClient.Create(ctx, nodeSLO)).To(Succeed())

		stored := map[string]any{}
		body, err := clientset.CoreV1().RESTClient().Get().
			AbsPath("/apis/slo.koordinator.sh/v1alpha1/nodeslos/extensions-wire-form").DoRaw(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(json.Unmarshal(body, &stored)).To(Succeed())
		Expect(stored["spec"]).To(Equal(map[string]any{"extensions": map[string]any{"Object": map[string]any{}}}))
	})
})

func toJSON(v any) string {
	out, err := json.Marshal(v)
	Expect(err).NotTo(HaveOccurred())
	return string(out)
}
