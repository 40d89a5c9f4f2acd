package deletionpolicy

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/test/testkit"
)

// otherNamespace holds a ConfigMap of the configured name that the policy
// must not guard.
const otherNamespace = "elsewhere"

// allowed is the one value of sloconfig.AllowDeleteAnnotation that allows.
const allowed = "true"

var configKey = client.ObjectKey{Namespace: sloconfig.DefaultConfigMapNamespace, Name: sloconfig.DefaultConfigMapName}

// The denials, as docs/behaviour.md#deleting-the-configmap gives them. The
// keys are sloconfig.Keys, in their order: the policy must count the keys
// the controller reads.
var (
	allowCommand = fmt.Sprintf("kubectl annotate configmap %s -n %s %s=true --overwrite",
		configKey.Name, configKey.Namespace, sloconfig.AllowDeleteAnnotation)
	deletingDenial = fmt.Sprintf("deleting ConfigMap %s would reset the NodeSLOs of all nodes to the defaults. "+
		"To delete it anyway, first run: %s", configKey, allowCommand)
	emptyingDenial = fmt.Sprintf("emptying ConfigMap %s (this update leaves none of %s in data; "+
		"binaryData is not read) would reset the NodeSLOs of all nodes to the defaults. "+
		"To empty it anyway, first run: %s", configKey, strings.Join(keyNames(), ", "), allowCommand)
	// otherValue ends a denial when the annotation has another value.
	otherValue = fmt.Sprintf(` (its %s is not "true", and only "true" allows it)`, sloconfig.AllowDeleteAnnotation)
)

// The specs are ordered only so that the namespace's deletion comes last.
var _ = Describe("the ConfigMap's deletion policy, with no manager running", Ordered, ContinueOnFailure, func() {
	BeforeEach(func(ctx SpecContext) {
		createConfigMap(ctx, configKey)
	})

	It("denies deleting the ConfigMap, saying what that does and the command that allows it", func(ctx SpecContext) {
		err := k8sClient.Delete(ctx, configMapObject(configKey))
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "want Forbidden, got %v", err)
		Expect(err).To(MatchError(HaveSuffix("denied request: " + deletingDenial)))
		Expect(stored(ctx, configKey).Data).To(Equal(configData()), "the ConfigMap is still there")

		By("denying it with the annotation set to another value than \"true\", saying so")
		for _, value := range []string{"True", "yes", ""} {
			annotate(ctx, configKey, &value)
			Expect(k8sClient.Delete(ctx, configMapObject(configKey))).
				To(MatchError(HaveSuffix(deletingDenial+otherValue)), "allow-delete %q", value)
		}
		Expect(stored(ctx, configKey).Data).To(Equal(configData()))
	})

	It("denies an update that leaves none of the configuration keys in data", func(ctx SpecContext) {
		for name, change := range map[string]func(cm *corev1.ConfigMap){
			"data removed": func(cm *corev1.ConfigMap) { cm.Data = nil },
			"data: {}":     func(cm *corev1.ConfigMap) { cm.Data = map[string]string{} },
			"keys moved to binaryData": func(cm *corev1.ConfigMap) {
				cm.BinaryData = map[string][]byte{}
				for k, v := range cm.Data {
					cm.BinaryData[k] = []byte(v)
				}
				cm.Data = nil
			},
			"only the rollout key and another component's left": func(cm *corev1.ConfigMap) {
				cm.Data = map[string]string{string(sloconfig.KeyRollout): "{}", "colocation-config": "{}"}
			},
		} {
			err := update(ctx, configKey, change)
			Expect(apierrors.IsForbidden(err)).To(BeTrue(), "%s: want Forbidden, got %v", name, err)
			Expect(err).To(MatchError(HaveSuffix("denied request: "+emptyingDenial)), name)
			Expect(stored(ctx, configKey).Data).To(Equal(configData()), "%s: the data is as before", name)
		}
	})

	It("admits an update that leaves any one of the configuration keys", func(ctx SpecContext) {
		for _, key := range keyNames() {
			Expect(update(ctx, configKey, func(cm *corev1.ConfigMap) {
				cm.Data = map[string]string{key: "{}"}
			})).To(Succeed(), "leaving %s only", key)
			Expect(update(ctx, configKey, func(cm *corev1.ConfigMap) { cm.Data = configData() })).To(Succeed())
		}
	})

	It("admits emptying and deleting the ConfigMap once it carries the annotation", func(ctx SpecContext) {
		By("emptying it in the update that sets the annotation")
		Expect(update(ctx, configKey, func(cm *corev1.ConfigMap) {
			metav1.SetMetaDataAnnotation(&cm.ObjectMeta, sloconfig.AllowDeleteAnnotation, allowed)
			cm.Data = nil
		})).To(Succeed())

		By("updating freely a ConfigMap that holds none of the keys, the annotation removed")
		annotate(ctx, configKey, nil)
		Expect(update(ctx, configKey, func(cm *corev1.ConfigMap) {
			cm.Data = map[string]string{string(sloconfig.KeyRollout): "{}"}
		})).To(Succeed())

		By("denying the deletion of that ConfigMap without the annotation all the same")
		Expect(k8sClient.Delete(ctx, configMapObject(configKey))).To(MatchError(HaveSuffix(deletingDenial)))

		By("emptying it after `kubectl annotate`, by an update that drops the annotation again")
		Expect(update(ctx, configKey, func(cm *corev1.ConfigMap) { cm.Data = configData() })).To(Succeed())
		annotate(ctx, configKey, new(allowed))
		Expect(update(ctx, configKey, func(cm *corev1.ConfigMap) {
			delete(cm.Annotations, sloconfig.AllowDeleteAnnotation)
			cm.Data = map[string]string{}
		})).To(Succeed())

		By("deleting it once annotated")
		Expect(update(ctx, configKey, func(cm *corev1.ConfigMap) { cm.Data = configData() })).To(Succeed())
		annotate(ctx, configKey, new(allowed))
		Expect(k8sClient.Delete(ctx, configMapObject(configKey))).To(Succeed())
		Expect(k8sClient.Get(ctx, configKey, &corev1.ConfigMap{})).To(Satisfy(apierrors.IsNotFound))
	})

	It("leaves every other ConfigMap alone: another name in its namespace, its name elsewhere", func(ctx SpecContext) {
		for _, key := range []client.ObjectKey{
			{Namespace: configKey.Namespace, Name: "other-config"},
			{Namespace: otherNamespace, Name: configKey.Name},
		} {
			createConfigMap(ctx, key)
			Expect(update(ctx, key, func(cm *corev1.ConfigMap) { cm.Data = nil })).To(Succeed(), "emptying %s", key)
			Expect(update(ctx, key, func(cm *corev1.ConfigMap) { cm.Data = configData() })).To(Succeed())
			Expect(k8sClient.Delete(ctx, configMapObject(key))).To(Succeed(), "deleting %s", key)
		}
	})

	It("denies deleting it among the namespace's ConfigMaps (a DELETE of the collection)", func(ctx SpecContext) {
		Expect(k8sClient.DeleteAllOf(ctx, &corev1.ConfigMap{}, client.InNamespace(configKey.Namespace))).
			To(MatchError(ContainSubstring(deletingDenial)))
		Expect(stored(ctx, configKey).Data).To(Equal(configData()))
	})

	// Deleting the namespace deletes its ConfigMaps (the namespace
	// controller's DELETE of the collection); envtest runs no namespace
	// controller, so the namespace stays Terminating and the deletion is
	// made here.
	It("admits deleting it once its namespace is being deleted", func(ctx SpecContext) {
		Expect(k8sClient.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: configKey.Namespace}})).
			To(Succeed())
		// The apiserver's admission reads the namespace from its cache:
		// the deletion is admitted once that has seen the namespace deleted.
		Eventually(func() error {
			return k8sClient.DeleteAllOf(ctx, &corev1.ConfigMap{}, client.InNamespace(configKey.Namespace))
		}).Should(Succeed())
		Expect(k8sClient.Get(ctx, configKey, &corev1.ConfigMap{})).To(Satisfy(apierrors.IsNotFound))
	})
})

// keyNames lists sloconfig.Keys as strings.
func keyNames() []string {
	names := make([]string, 0, len(sloconfig.Keys))
	for _, k := range sloconfig.Keys {
		names = append(names, string(k))
	}
	return names
}

// configData holds every configuration key, the retired rollout key and
// another component's key: the policy reads which keys there are, never a
// value.
func configData() map[string]string {
	data := map[string]string{string(sloconfig.KeyRollout): "{}", "colocation-config": "{}"}
	for _, k := range keyNames() {
		data[k] = "{}"
	}
	return data
}

func configMapObject(key client.ObjectKey) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
}

// createConfigMap creates the ConfigMap key with configData, deleted after
// the spec (annotated for it first) when it is still there.
func createConfigMap(ctx context.Context, key client.ObjectKey) {
	GinkgoHelper()
	cm := configMapObject(key)
	cm.Data = configData()
	Expect(k8sClient.Create(ctx, cm)).To(Succeed(), "creating ConfigMap %s", key)
	DeferCleanup(func(ctx SpecContext) { testkit.DeleteConfig(ctx, k8sClient, key) })
}

// update reads the ConfigMap key, changes it and writes it back, returning
// the write's error.
func update(ctx context.Context, key client.ObjectKey, change func(*corev1.ConfigMap)) error {
	GinkgoHelper()
	cm := stored(ctx, key)
	change(cm)
	return k8sClient.Update(ctx, cm)
}

// annotate sets the allow-delete annotation to *value, or removes it for
// nil, by a patch that changes nothing else (`kubectl annotate`).
func annotate(ctx context.Context, key client.ObjectKey, value *string) {
	GinkgoHelper()
	patch := map[string]any{"metadata": map[string]any{"annotations": map[string]any{
		sloconfig.AllowDeleteAnnotation: value,
	}}}
	Expect(k8sClient.Patch(ctx, configMapObject(key), client.RawPatch(types.MergePatchType, mustJSON(patch)))).
		To(Succeed(), "annotating ConfigMap %s", key)
}

func stored(ctx context.Context, key client.ObjectKey) *corev1.ConfigMap {
	GinkgoHelper()
	cm := &corev1.ConfigMap{}
	Expect(k8sClient.Get(ctx, key, cm)).To(Succeed(), "reading ConfigMap %s", key)
	return cm
}

func mustJSON(v any) []byte {
	GinkgoHelper()
	out, err := json.Marshal(v)
	Expect(err).NotTo(HaveOccurred())
	return out
}
