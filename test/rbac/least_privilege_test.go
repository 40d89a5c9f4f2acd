package rbac_test

import (
	"context"
	"fmt"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/api/scheme"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// The API groups and resources of the tables below.
const (
	eventsGroup, appsGroup = "events.k8s.io", "apps"
	sloGroup, leasesGroup  = "slo.koordinator.sh", "coordination.k8s.io"
	nodesloGroup           = "nodeslo.koordinator.sh"
	events, revisions      = "events", "controllerrevisions"
	configMaps             = "configmaps"
	otherNamespace         = "kube-system"
	patch                  = "patch"
	create                 = "create"
)

// codesUse is every permission the manager's code needs, written out from
// what it calls (internal/controller/setup.go's markers say why each):
// config/rbac must grant exactly these, nothing more. Namespace "" is
// cluster-wide; systemNamespace is the manager's own (leader election).
var codesUse = slices.Concat(
	uses("get list watch", "", "nodes", "", ""),
	uses("get list watch create update delete", sloGroup, "nodeslos", "", ""),
	// The NodeSLO CRD's metadata, by name: a replaced CRD is dry-run again at once.
	uses("list watch", "apiextensions.k8s.io", "customresourcedefinitions", "", sloconfig.NodeSLOCRDName),
	// Events recorded: about the Nodes in default, about the ConfigMap in its namespace.
	uses("create patch", eventsGroup, events, "default", ""),
	uses("create patch", eventsGroup, events, configNamespace, ""),
	// The one ConfigMap, by name: read, never written.
	uses("get list watch", "", configMaps, configNamespace, configName),
	// Its NodeSLORollout: watched by name, its status patched (its operator creates it).
	uses("list watch", nodesloGroup, "nodeslorollouts", configNamespace, configName),
	uses("patch", nodesloGroup, "nodeslorollouts/status", configNamespace, configName),
	// The revision history (narrowed further by the admission policy).
	uses("list create patch delete", appsGroup, revisions, configNamespace, ""),
	// Leader election, in the manager's namespace.
	uses("get create update", leasesGroup, "leases", systemNamespace, ""),
	uses("create", "", events, systemNamespace, ""),
	// The metrics endpoint's authentication and authorisation.
	uses("create", "authentication.k8s.io", "tokenreviews", "", ""),
	uses("create", "authorization.k8s.io", "subjectaccessreviews", "", ""),
)

// uses is one permission per verb of the space-separated verbs.
func uses(verbs, group, resource, namespace, name string) []permission {
	out := make([]permission, 0, strings.Count(verbs, " ")+1)
	for verb := range strings.FieldsSeq(verbs) {
		out = append(out, permission{verb, group, resource, namespace, name})
	}
	return out
}

var _ = Describe("the least privilege of the manager's ServiceAccount", func() {
	ctx := context.Background()

	It("is granted exactly what its code uses", func() {
		grants, err := grantsOf(ctx, k8sClient, systemNamespace, serviceAccount)
		Expect(err).NotTo(HaveOccurred())
		granted := make([]permission, 0, len(grants))
		for _, g := range grants {
			granted = append(granted, g.permission)
		}
		Expect(granted).To(ConsistOf(codesUse), "config/rbac's grants, against the code's use")
	})

	DescribeTable("is refused what its code never does",
		func(p permission) {
			Expect(allowed(ctx, p)).To(BeFalse(), "%s is allowed", p)
		},
		Entry("Events created in another namespace", permission{create, eventsGroup, events, otherNamespace, ""}),
		Entry("Events patched in another namespace", permission{patch, eventsGroup, events, otherNamespace, ""}),
		Entry("core Events created in Koordinator's namespace", permission{create, "", events, configNamespace, ""}),
		Entry("core Events listed (a health gate counts no Event)", permission{"list", "", events, "", ""}),
		Entry("ControllerRevisions deleted in another namespace",
			permission{"delete", appsGroup, revisions, otherNamespace, ""}),
		Entry("ControllerRevisions updated (only patched)", permission{"update", appsGroup, revisions, configNamespace, ""}),
		Entry("another ConfigMap of Koordinator's namespace read",
			permission{"get", "", configMaps, configNamespace, koordletConfig}),
		Entry("NodeSLOs patched (only updated)", permission{patch, sloGroup, "nodeslos", "", ""}),
		Entry("the ConfigMap written", permission{patch, "", configMaps, configNamespace, configName}),
		Entry("a NodeSLORollout created (the operator's: its strategy decides how changes roll out)",
			permission{create, nodesloGroup, "nodeslorollouts", configNamespace, ""}),
		Entry("the NodeSLORollout's spec written (the operator's)",
			permission{patch, nodesloGroup, "nodeslorollouts", configNamespace, configName}),
		Entry("Leases deleted", permission{"delete", leasesGroup, "leases", systemNamespace, ""}),
		Entry("Secrets read", permission{"get", "", "secrets", configNamespace, ""}),
		Entry("another CRD listed (only the NodeSLO CRD's metadata is watched)",
			permission{"list", "apiextensions.k8s.io", "customresourcedefinitions", "",
				"nodeslorollouts.nodeslo.koordinator.sh"}),
		Entry("the NodeSLO CRD written", permission{"update", "apiextensions.k8s.io", "customresourcedefinitions", "",
			sloconfig.NodeSLOCRDName}),
	)

	// RBAC lets the manager write every ControllerRevision of Koordinator's
	// namespace; config/rbac/controllerrevision_policy.yaml narrows that to
	// its ConfigMap's history. The requests are made as the ServiceAccount
	// (impersonated, so that the review's audit of the manager's own
	// requests does not see them).
	Describe("writing ControllerRevisions", Ordered, func() {
		var asManager client.Client
		// koordlet is a DaemonSet's revision, as the DaemonSet controller keeps them.
		koordlet := &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{
			Namespace: configNamespace, Name: "koordlet-5d8f9c7b4",
			Labels: map[string]string{"controller-revision-hash": "5d8f9c7b4", "app": koordletName},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: koordletName,
				UID: types.UID("0c1a5d4e-0000-4000-8000-000000000001"), Controller: new(true)}},
		}, Data: runtime.RawExtension{Raw: []byte(`{"spec":{}}`)}, Revision: 3}

		BeforeAll(func() {
			cfg := rest.CopyConfig(adminConfig)
			cfg.Impersonate = rest.ImpersonationConfig{UserName: managerUser}
			var err error
			asManager, err = client.New(cfg, client.Options{Scheme: scheme.New()})
			Expect(err).NotTo(HaveOccurred())
			Expect(k8sClient.Create(ctx, koordlet.DeepCopy())).To(Succeed())
			DeferCleanup(func() { Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, koordlet.DeepCopy()))).To(Succeed()) })
			By("waiting until the apiserver enforces the policy: a dry run, admitted as a write would be")
			planted := historyRevision(97)
			planted.Labels = nil
			Eventually(func() error { return asManager.Create(ctx, planted, client.DryRunAll) }).
				Should(beRefusedByThePolicy())
		})

		It("refuses to delete or patch a DaemonSet's revision", func() {
			Expect(asManager.Delete(ctx, koordlet.DeepCopy())).To(beRefusedByThePolicy())
			Expect(asManager.Patch(ctx, koordlet.DeepCopy(),
				client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"app":"planted"}}}`)))).
				To(beRefusedByThePolicy())
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(koordlet), &appsv1.ControllerRevision{})).To(Succeed())
		})

		DescribeTable("refuses to create a revision that is not its ConfigMap's",
			func(mutate func(*appsv1.ControllerRevision)) {
				r := historyRevision(98)
				mutate(r)
				Expect(asManager.Create(ctx, r.DeepCopy())).To(beRefusedByThePolicy())
			},
			Entry("a DaemonSet's name", func(r *appsv1.ControllerRevision) { r.Name = "koordlet-6e9f" }),
			Entry("without the ConfigMap's label", func(r *appsv1.ControllerRevision) { r.Labels = nil }),
			Entry("another ConfigMap's label", func(r *appsv1.ControllerRevision) {
				r.Labels[rollout.RevisionConfigMapLabel] = koordletConfig
			}),
			Entry("a DaemonSet's selector labels beside it, for the DaemonSet to adopt",
				func(r *appsv1.ControllerRevision) { r.Labels["app"] = koordletName }),
			Entry("an owner", func(r *appsv1.ControllerRevision) { r.OwnerReferences = koordlet.OwnerReferences }),
		)

		It("creates, patches and deletes its ConfigMap's history", func() {
			r := historyRevision(99)
			Expect(asManager.Create(ctx, r.DeepCopy())).To(Succeed())
			Expect(asManager.Patch(ctx, r.DeepCopy(), client.RawPatch(types.MergePatchType,
				[]byte(`{"metadata":{"annotations":{"nodeslo.koordinator.sh/outcome":"Completed"}}}`)))).To(Succeed())
			Expect(asManager.Delete(ctx, r.DeepCopy())).To(Succeed())
		})
	})
})

// Koordinator's node agent, and its ConfigMap, as Koordinator names them.
const koordletName, koordletConfig = "koordlet", "koordlet-config"

// historyRevision is revision number of the ConfigMap's history, as the
// manager writes it (rollout.Revision.Object).
func historyRevision(number int64) *appsv1.ControllerRevision {
	r := rollout.Revision{Number: number, Fingerprint: fmt.Sprintf("fingerprint-%d", number),
		Data: map[string]string{}, Outcome: rollout.OutcomeCompleted}
	return r.Object(types.NamespacedName{Namespace: configNamespace, Name: configName})
}

// allowed asks the apiserver whether the manager's ServiceAccount may do p.
func allowed(ctx context.Context, p permission) (bool, error) {
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:   managerUser,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + systemNamespace, "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Verb: p.Verb, Group: p.Group, Resource: p.Resource, Namespace: p.Namespace, Name: p.Name,
		},
	}}
	if err := k8sClient.Create(ctx, sar); err != nil {
		return false, err
	}
	return sar.Status.Allowed, nil
}

// beRefusedByThePolicy matches the refusal of
// config/rbac/controllerrevision_policy.yaml.
func beRefusedByThePolicy() OmegaMatcher {
	return SatisfyAll(
		WithTransform(apierrors.IsInvalid, BeTrue()),
		MatchError(ContainSubstring("may only write the revision history of its ConfigMap "+configName)))
}
