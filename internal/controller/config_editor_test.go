package controller_test

import (
	"context"
	"maps"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/controller"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// configEditorUser may do with ConfigMaps in the ConfigMap's namespace what
// the built-in edit role allows, and may read NodeSLORollouts, no more: who
// decides the configuration but not how it reaches the nodes
// (docs/deploy.md#who-moves-a-rollout).
const configEditorUser = "config-editor"

// Names of RBAC rules the suite's users are granted by.
const (
	verbList   = "list"
	verbWatch  = "watch"
	verbCreate = "create"
	roleKind   = "Role"
)

// editVerbs are the verbs the built-in edit role grants on most kinds.
var editVerbs = []string{verbCreate, "delete", "deletecollection", "get", verbList, "patch", "update", verbWatch}

// userBinding binds user to the Role of the name in namespace.
func userBinding(namespace, name, role, user string) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: roleKind, Name: role},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: user, APIGroup: rbacv1.GroupName}},
	}
}

// grantConfigEditor creates configEditorUser's Role and RoleBinding in the
// ConfigMap's namespace. envtest runs no kube-controller-manager to
// aggregate edit's rules, so the Role spells out those on ConfigMaps.
func grantConfigEditor(ctx context.Context) {
	Expect(client.IgnoreAlreadyExists(k8sClient.Create(ctx,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: configNamespace}}))).To(Succeed())
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "edit-configmaps", Namespace: configNamespace},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: editVerbs},
			{APIGroups: []string{nodeslov1alpha1.GroupVersion.Group}, Resources: []string{"nodeslorollouts"},
				Verbs: []string{"get", verbList, verbWatch}},
		},
	}
	binding := userBinding(configNamespace, "config-editors", role.Name, configEditorUser)
	for _, obj := range []client.Object{role, binding} {
		Expect(client.IgnoreAlreadyExists(k8sClient.Create(ctx, obj))).To(Succeed())
	}
}

// editConfig writes the ConfigMap's data as configEditor, with the
// retired rollout key set to key ("": left out), and waits until the
// controller read that version. No admission webhook runs in this suite:
// the key reaches the controller, as when the webhook is down.
func editConfig(ctx context.Context, data map[string]string, key string) {
	GinkgoHelper()
	data = maps.Clone(data)
	delete(data, string(sloconfig.KeyRollout))
	if key != "" {
		data[string(sloconfig.KeyRollout)] = key
	}
	cm := &corev1.ConfigMap{}
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := configEditor.Get(ctx, types.NamespacedName{Namespace: configNamespace, Name: configName}, cm); err != nil {
			return err
		}
		cm.Data = data
		return configEditor.Update(ctx, cm)
	})).To(Succeed(), "the ConfigMap editor writes the ConfigMap")
	Eventually(func(g Gomega) {
		g.Expect(rolloutObject(ctx).Status.ObservedConfigMapVersion).To(Equal(cm.ResourceVersion))
	}).Should(Succeed(), "the controller did not take up the editor's ConfigMap")
}

var _ = Describe("A ConfigMap editor who may not write NodeSLORollouts", Serial, Label(shardRollout), func() {
	var (
		cm     *corev1.ConfigMap
		f      fleet
		target string
	)
	BeforeEach(func(ctx SpecContext) { cm, f, target = stagedRolloutSetUp(ctx) })

	It("is refused every write of the NodeSLORollout, its spec's controls and strategy and its status",
		func(ctx SpecContext) {
			halt := &nodeslov1alpha1.HaltReference{HaltedAt: metav1.Now()}
			attempts := map[string]func(*nodeslov1alpha1.NodeSLORollout) error{
				"pause": func(o *nodeslov1alpha1.NodeSLORollout) error {
					o.Spec.Paused = true
					return configEditor.Update(ctx, o)
				},
				"resume": func(o *nodeslov1alpha1.NodeSLORollout) error {
					o.Spec.Resume = halt
					return configEditor.Update(ctx, o)
				},
				"retry": func(o *nodeslov1alpha1.NodeSLORollout) error {
					o.Spec.Retry = halt
					return configEditor.Update(ctx, o)
				},
				"drop the strategy": func(o *nodeslov1alpha1.NodeSLORollout) error {
					o.Spec.Strategy = nil
					return configEditor.Update(ctx, o)
				},
				"write the status": func(o *nodeslov1alpha1.NodeSLORollout) error {
					o.Status.Phase = nodeslov1alpha1.RolloutPhase("Completed")
					return configEditor.Status().Update(ctx, o)
				},
				"delete it": func(o *nodeslov1alpha1.NodeSLORollout) error { return configEditor.Delete(ctx, o) },
				"create another": func(*nodeslov1alpha1.NodeSLORollout) error {
					return configEditor.Create(ctx, &nodeslov1alpha1.NodeSLORollout{
						ObjectMeta: metav1.ObjectMeta{Namespace: configNamespace, Name: "other"}})
				},
			}
			for what, attempt := range attempts {
				obj := &nodeslov1alpha1.NodeSLORollout{}
				Expect(configEditor.Get(ctx, client.ObjectKeyFromObject(rolloutObject(ctx)), obj)).
					To(Succeed(), "the editor reads the NodeSLORollout")
				err := attempt(obj)
				Expect(apierrors.IsForbidden(err)).To(BeTrue(), "%s: %v", what, err)
			}
		})

	It("can neither resume, pause, speed up nor release a rollout, with the retired key or without it",
		func(ctx SpecContext) {
			holdClock()
			// The operator pauses; the editor changes the configuration,
			// with the retired key saying unpaused.
			setStrategy(ctx, rolloutPolicy(true))
			data := rolloutData(40, "")
			editConfig(ctx, data, `{"paused": false}`)
			Eventually(configEvents(ctx, cm, corev1.EventTypeWarning, sloconfig.ReasonInvalidConfig)).
				Should(ContainElement(ContainSubstring("the staged rollout's policy is the NodeSLORollout's spec.strategy")),
					"the editor is told where the policy went")
			held := func(what string) {
				GinkgoHelper()
				skipAndSettle(6 * time.Second) // three of the strategy's 2 s step intervals
				Expect(writes.Total()).To(BeZero(), "a node was written while the operator paused, %s", what)
				Expect(rolloutPhase()).To(Equal(controller.RolloutPhasePaused), what)
			}
			held("the key unpaused")
			editConfig(ctx, data, `{"paused": false, "maxNodesPerStep": 1000}`)
			held("the key's bytes changed (which resumed a halt before the key was retired)")
			editConfig(ctx, data, "")
			held("the key removed (which released every held node at once before)")

			By("not pausing nor speeding up the rollout the operator resumed")
			setStrategy(ctx, rolloutPolicy(false))
			editConfig(ctx, data, `{"paused": true, "maxNodesPerStep": 1000, "stepIntervalSeconds": 1}`)
			// Each observation checks no more than 10 nodes a step.
			watchRollout(ctx, f, target, 40, nil)
			Eventually(aSecondALook(func() bool { return rolloutDone(ctx) })).Should(BeTrue())
			Expect(record(ctx).Steps).To(Equal(rolloutSteps), "the steps of the operator's strategy")
			settle()
			for _, n := range f.names {
				Expect(writes.Succeeded(n)).To(Equal(1), "node %s written once", n)
			}
		})
})
