package controller_test

import (
	"context"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/api/scheme"
	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
)

// podNamespace is the one namespace whose Pods the suite's manager counts
// (--health-gate-pod-namespaces), as an administrator lists the namespace
// of koordlet's best-effort workloads; tenantNamespace is a tenant's, not
// listed (docs/rollout.md#evictions).
const (
	podNamespace    = "be-workloads"
	tenantNamespace = "tenant-a"
	// tenantUser holds, in tenantNamespace, what the built-in edit role
	// grants on Pods, and no other right.
	tenantUser = "tenant-a-developer"
	// podsResource is the Pods' resource, in a rule and a request path.
	podsResource = "pods"
)

// grantPodNamespaces creates podNamespace and grants the manager's
// ServiceAccount list and watch of Pods there, as the chart does for each
// namespace of healthGate.podNamespaces (config/rbac grants no Pod); and
// creates tenantNamespace, where tenantUser may do with Pods what edit allows.
func grantPodNamespaces(ctx context.Context) {
	for _, ns := range []string{podNamespace, tenantNamespace} {
		Expect(client.IgnoreAlreadyExists(k8sClient.Create(ctx,
			&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))).To(Succeed())
	}
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "nodeslo-pod-evictions", Namespace: podNamespace},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{podsResource},
			Verbs: []string{verbList, verbWatch}}},
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "nodeslo-pod-evictions", Namespace: podNamespace},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: roleKind, Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: envtestharness.ServiceAccountName,
			Namespace: envtestharness.SystemNamespace}},
	}
	// The built-in edit role's rules on Pods: envtest runs no
	// kube-controller-manager to aggregate edit's rules into it, so the
	// tenant's Role spells out those it uses.
	edit := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "edit-pods", Namespace: tenantNamespace},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{podsResource}, Verbs: editVerbs},
			{APIGroups: []string{""}, Resources: []string{"pods/eviction"}, Verbs: []string{verbCreate}},
		},
	}
	tenant := userBinding(tenantNamespace, "developers", edit.Name, tenantUser)
	for _, obj := range []client.Object{role, binding, edit, tenant} {
		Expect(client.IgnoreAlreadyExists(k8sClient.Create(ctx, obj))).To(Succeed())
	}
}

// clientAs is user's client: the admin's config impersonating it.
func clientAs(admin *rest.Config, user string) client.Client {
	cfg := rest.CopyConfig(admin)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	c, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	Expect(err).NotTo(HaveOccurred())
	return c
}
