package crd

import (
	"encoding/json"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/internal/storedslo"
)

// The CRD gives the four values of a networkQOS object schema defaults, as
// Koordinator's CRD does since v1.4.0: ingressRequest and egressRequest 0,
// ingressLimit and egressLimit 100 (integers: percentages). A NodeSLO
// written by another client with a partial networkQOS keeps the same
// values once this CRD replaces Koordinator's.
var _ = Describe("The networkQOS defaults of the CRD", func() {
	It("fill each value a networkQOS object leaves out, in every class, and keep the values set", func() {
		nodeSLO := &slov1alpha1.NodeSLO{
			ObjectMeta: metav1.ObjectMeta{Name: "network-qos-defaults"},
			Spec: slov1alpha1.NodeSLOSpec{ResourceQOSStrategy: &slov1alpha1.ResourceQOSStrategy{
				LSRClass: &slov1alpha1.ResourceQOS{NetworkQOS: &slov1alpha1.NetworkQOSCfg{}},
				LSClass:  &slov1alpha1.ResourceQOS{NetworkQOS: &slov1alpha1.NetworkQOSCfg{Enable: new(true)}},
				BEClass: &slov1alpha1.ResourceQOS{NetworkQOS: &slov1alpha1.NetworkQOSCfg{
					Enable: new(true),
					NetworkQOS: slov1alpha1.NetworkQOS{
						IngressLimit: new(intstr.FromString("500M")), EgressLimit: new(intstr.FromInt32(50)),
					},
				}},
				SystemClass: &slov1alpha1.ResourceQOS{NetworkQOS: &slov1alpha1.NetworkQOSCfg{
					NetworkQOS: slov1alpha1.NetworkQOS{
						IngressRequest: new(intstr.FromString("10M")), EgressRequest: new(intstr.FromInt32(5)),
					},
				}},
				CgroupRoot: &slov1alpha1.ResourceQOS{NetworkQOS: &slov1alpha1.NetworkQOSCfg{
					Enable: new(false),
					NetworkQOS: slov1alpha1.NetworkQOS{
						IngressRequest: new(intstr.FromInt32(0)), IngressLimit: new(intstr.FromInt32(0)),
						EgressRequest: new(intstr.FromInt32(0)), EgressLimit: new(intstr.FromInt32(0)),
					},
				}},
			}},
		}
		Expect(k8sClient.Create(ctx, nodeSLO)).To(Succeed())

		want := map[string]string{
			"lsrClass": `{"ingressRequest": 0, "ingressLimit": 100, "egressRequest": 0, "egressLimit": 100}`,
			"lsClass": `{"enable": true,
				"ingressRequest": 0, "ingressLimit": 100, "egressRequest": 0, "egressLimit": 100}`,
			"beClass": `{"enable": true,
				"ingressRequest": 0, "ingressLimit": "500M", "egressRequest": 0, "egressLimit": 50}`,
			"systemClass": `{"ingressRequest": "10M", "ingressLimit": 100, "egressRequest": 5, "egressLimit": 100}`,
			"cgroupRoot": `{"enable": false,
				"ingressRequest": 0, "ingressLimit": 0, "egressRequest": 0, "egressLimit": 0}`,
		}
		stored := storedResourceQOS(nodeSLO.Name)
		for class, networkQOS := range want {
			Expect(stored).To(HaveKey(class))
			Expect(toJSON(stored[class]["networkQOS"])).To(MatchJSON(networkQOS), "%s.networkQOS as stored", class)
		}
		// The create's answer is the stored object: the typed client sees
		// the defaults as integers, not as strings.
		Expect(nodeSLO.Spec.ResourceQOSStrategy.LSRClass.NetworkQOS.IngressLimit).
			To(Equal(new(intstr.FromInt32(100))))

		By("an update that replaces a networkQOS object is defaulted too")
		nodeSLO.Spec.ResourceQOSStrategy.BEClass.NetworkQOS = &slov1alpha1.NetworkQOSCfg{
			NetworkQOS: slov1alpha1.NetworkQOS{EgressLimit: new(intstr.FromInt32(30))},
		}
		Expect(k8sClient.Update(ctx, nodeSLO)).To(Succeed())
		Expect(toJSON(storedResourceQOS(nodeSLO.Name)["beClass"]["networkQOS"])).To(MatchJSON(
			`{"ingressRequest": 0, "ingressLimit": 100, "egressRequest": 0, "egressLimit": 30}`))
	})

	It("add no networkQOS object where there is none", func() {
		nodeSLO := &slov1alpha1.NodeSLO{
			ObjectMeta: metav1.ObjectMeta{Name: "network-qos-absent"},
			Spec: slov1alpha1.NodeSLOSpec{ResourceQOSStrategy: &slov1alpha1.ResourceQOSStrategy{
				LSClass: &slov1alpha1.ResourceQOS{CPUQOS: &slov1alpha1.CPUQOSCfg{Enable: new(true)}},
				BEClass: &slov1alpha1.ResourceQOS{},
			}},
		}
		Expect(k8sClient.Create(ctx, nodeSLO)).To(Succeed())
		Expect(storedSpec(nodeSLO.Name)).To(MatchJSON(
			`{"resourceQOSStrategy": {"lsClass": {"cpuQOS": {"enable": true}}, "beClass": {}}}`))

		empty := &slov1alpha1.NodeSLO{
			ObjectMeta: metav1.ObjectMeta{Name: "network-qos-empty-strategy"},
			Spec:       slov1alpha1.NodeSLOSpec{ResourceQOSStrategy: &slov1alpha1.ResourceQOSStrategy{}},
		}
		Expect(k8sClient.Create(ctx, empty)).To(Succeed())
		Expect(storedSpec(empty.Name)).To(MatchJSON(`{"resourceQOSStrategy": {}}`))
	})

	// Schema defaults also apply when an object is read from etcd: a
	// NodeSLO stored while the installed CRD had no defaults (this
	// project's before them, or Koordinator's before v1.4.0) reads with
	// them once the CRD has them, without a write or a new generation.
	It("are applied when reading a NodeSLO stored before the CRD had them", Serial, func() {
		crd := nodeSLOCRD()
		original := crd.DeepCopy()
		DeferCleanup(func() { setCRDSchemaFrom(original) })

		Expect(stripNetworkQOSDefaults(crd.Object)).To(Equal(4*5), "four values in each of the five classes")
		Expect(k8sClient.Update(ctx, crd)).To(Succeed())

		partial := func() *slov1alpha1.NodeSLO {
			return &slov1alpha1.NodeSLO{
				ObjectMeta: metav1.ObjectMeta{Name: "network-qos-before-defaults"},
				Spec: slov1alpha1.NodeSLOSpec{ResourceQOSStrategy: &slov1alpha1.ResourceQOSStrategy{
					BEClass: &slov1alpha1.ResourceQOS{NetworkQOS: &slov1alpha1.NetworkQOSCfg{Enable: new(true)}},
				}},
			}
		}
		// The apiserver takes a moment to serve the changed schema.
		Eventually(func(g Gomega) {
			trial := partial()
			g.Expect(k8sClient.Create(ctx, trial, client.DryRunAll)).To(Succeed())
			g.Expect(trial.Spec.ResourceQOSStrategy.BEClass.NetworkQOS.IngressLimit).To(BeNil())
		}).Should(Succeed())
		before := partial()
		Expect(k8sClient.Create(ctx, before)).To(Succeed())
		Expect(toJSON(storedResourceQOS(before.Name)["beClass"]["networkQOS"])).To(MatchJSON(`{"enable": true}`))

		setCRDSchemaFrom(original)
		Eventually(func(g Gomega) {
			g.Expect(toJSON(storedResourceQOS(before.Name)["beClass"]["networkQOS"])).To(MatchJSON(
				`{"enable": true, "ingressRequest": 0, "ingressLimit": 100, "egressRequest": 0, "egressLimit": 100}`))
		}).Should(Succeed())
		after := &slov1alpha1.NodeSLO{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(before), after)).To(Succeed())
		Expect(after.Generation).To(Equal(before.Generation), "defaulting on read is no spec change")
		Expect(after.ResourceVersion).To(Equal(before.ResourceVersion), "defaulting on read writes nothing")
	})
})

// The engine fills the values a networkQOS object leaves out as the CRD's
// schema does (docs/nodeslo-api.md#resourceqos), so that the spec the
// controller resolves and sends is the spec the apiserver stores: "is this
// NodeSLO up to date?" then never sees a difference the apiserver made, and
// the digest stamped on a write names the generation the write gives.
var _ = Describe("A spec resolved from a ConfigMap whose networkQOS leaves values out", func() {
	// The network QoS of test/bench's ConfigMap; the same with one, and
	// with both, of the values it leaves out spelled out as their defaults.
	const (
		partialQOS = `{"clusterStrategy": {"beClass": {"networkQOS":
			{"enable": true, "ingressLimit": "500M", "egressLimit": 50}}}}`
		spelledOutQOS = `{"clusterStrategy": {"beClass": {"networkQOS":
			{"enable": true, "ingressLimit": "500M", "egressLimit": 50, "ingressRequest": 0}}}}`
		completeQOS = `{"clusterStrategy": {"beClass": {"networkQOS":
			{"enable": true, "ingressLimit": "500M", "egressLimit": 50, "ingressRequest": 0, "egressRequest": 0}}}}`
	)

	resolve := func(qos string) slov1alpha1.NodeSLOSpec {
		cfg := sloconfig.Load(map[string]string{string(sloconfig.KeyResourceQOS): qos}, nil)
		Expect(cfg.Valid()).To(BeTrue(), "%v", cfg.Reports())
		return cfg.Resolve(sloconfig.Node{Name: "network-qos-node"}, nil).Spec
	}
	// write creates obj (no resourceVersion yet) or updates it with spec
	// and a digest annotation naming generation, as the controller stamps
	// its writes; obj then holds the apiserver's answer.
	write := func(obj *slov1alpha1.NodeSLO, spec slov1alpha1.NodeSLOSpec, generation int64) {
		if obj.Annotations == nil {
			obj.Annotations = map[string]string{}
		}
		obj.Annotations[storedslo.SpecDigestAnnotation] = storedslo.FormatSpecDigest(generation, sloconfig.SpecDigest(&spec))
		obj.Spec = *spec.DeepCopy()
		if obj.ResourceVersion == "" {
			Expect(k8sClient.Create(ctx, obj)).To(Succeed())
		} else {
			Expect(k8sClient.Update(ctx, obj)).To(Succeed())
		}
	}

	It("is stored exactly as resolved: the engine fills the schema's defaults", func() {
		resolved := resolve(partialQOS)
		Expect(resolved.ResourceQOSStrategy.BEClass.NetworkQOS.IngressRequest).To(HaveValue(Equal(intstr.FromInt32(0))))
		Expect(resolved.ResourceQOSStrategy.BEClass.NetworkQOS.EgressRequest).To(HaveValue(Equal(intstr.FromInt32(0))))

		obj := &slov1alpha1.NodeSLO{ObjectMeta: metav1.ObjectMeta{Name: "network-qos-resolved"}}
		write(obj, resolved, 1)
		Expect(sloconfig.SpecEqual(&obj.Spec, &resolved)).To(BeTrue(), "stored %s\nresolved %s",
			toJSON(obj.Spec), toJSON(resolved))
		Expect(sloconfig.DroppedPaths(&obj.Spec, &resolved)).To(BeEmpty(), "the apiserver added nothing")
		Expect(storedslo.VouchedDigest(obj)).To(Equal(sloconfig.SpecDigest(&resolved)))
	})

	It("spelling a default out changes neither the digest nor the stored spec", func() {
		resolved, spelledOut, complete := resolve(partialQOS), resolve(spelledOutQOS), resolve(completeQOS)
		Expect(sloconfig.SpecDigest(&spelledOut)).To(Equal(sloconfig.SpecDigest(&resolved)))
		Expect(sloconfig.SpecDigest(&complete)).To(Equal(sloconfig.SpecDigest(&resolved)))
	})

	It("a write that changes the spec moves the generation to the one its digest names", func() {
		resolved := resolve(partialQOS)
		obj := &slov1alpha1.NodeSLO{ObjectMeta: metav1.ObjectMeta{Name: "network-qos-rewritten"}}
		write(obj, slov1alpha1.NodeSLOSpec{}, 1)
		write(obj, resolved, obj.Generation+1)
		Expect(obj.Generation).To(Equal(int64(2)))
		Expect(storedslo.VouchedDigest(obj)).To(Equal(sloconfig.SpecDigest(&resolved)))
		Expect(sloconfig.SpecEqual(&obj.Spec, &resolved)).To(BeTrue())
	})
})

// storedSpec is the NodeSLO's spec as the apiserver answers a GET, raw.
func storedSpec(name string) string {
	var obj struct {
		Spec json.RawMessage `json:"spec"`
	}
	body, err := clientset.CoreV1().RESTClient().Get().
		AbsPath("/apis/slo.koordinator.sh/v1alpha1/nodeslos/" + name).DoRaw(ctx)
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	ExpectWithOffset(1, json.Unmarshal(body, &obj)).To(Succeed())
	return string(obj.Spec)
}

// storedResourceQOS is the NodeSLO's resourceQOSStrategy as stored, raw:
// class name to the class's sections.
func storedResourceQOS(name string) map[string]map[string]any {
	var spec struct {
		ResourceQOSStrategy map[string]map[string]any `json:"resourceQOSStrategy"`
	}
	ExpectWithOffset(1, json.Unmarshal([]byte(storedSpec(name)), &spec)).To(Succeed())
	return spec.ResourceQOSStrategy
}

var crdGVK = schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}

// nodeSLOCRD is the installed NodeSLO CRD.
func nodeSLOCRD() *unstructured.Unstructured {
	crd := &unstructured.Unstructured{}
	crd.SetGroupVersionKind(crdGVK)
	ExpectWithOffset(1, k8sClient.Get(ctx, client.ObjectKey{Name: "nodeslos.slo.koordinator.sh"}, crd)).To(Succeed())
	return crd
}

// setCRDSchemaFrom puts the spec of from back on the installed CRD.
func setCRDSchemaFrom(from *unstructured.Unstructured) {
	ExpectWithOffset(1, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		crd := nodeSLOCRD()
		crd.Object["spec"] = from.DeepCopy().Object["spec"]
		return k8sClient.Update(ctx, crd)
	})).To(Succeed())
}

// stripNetworkQOSDefaults removes the defaults of the four values of every
// networkQOS schema under node and returns how many it removed.
func stripNetworkQOSDefaults(node any) int {
	removed := 0
	switch n := node.(type) {
	case map[string]any:
		for name, child := range n {
			if name == "networkQOS" {
				props, _ := child.(map[string]any)["properties"].(map[string]any)
				for _, field := range []string{"ingressRequest", "ingressLimit", "egressRequest", "egressLimit"} {
					p, _ := props[field].(map[string]any)
					if _, ok := p["default"]; !ok {
						Fail(fmt.Sprintf("networkQOS.%s has no default to remove", field))
					}
					delete(p, "default")
					removed++
				}
				continue
			}
			removed += stripNetworkQOSDefaults(child)
		}
	case []any:
		for _, child := range n {
			removed += stripNetworkQOSDefaults(child)
		}
	}
	return removed
}
