package localcluster

import (
	"context"
	"fmt"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ServiceAccount is an identity bound only to RBAC manifests of config/rbac,
// for suites that run the manager with no more rights than it is deployed with.
type ServiceAccount struct {
	// Namespace holds the ServiceAccount and receives the namespaced Roles
	// and RoleBindings that name none (the un-kustomized manifests use
	// "system", which kustomize replaces when deploying).
	Namespace, Name string
	// RBACDir and Files are the manifests to create, e.g. config/rbac and role.yaml.
	RBACDir string
	Files   []string
	// ExtraNamespaces are created too (the ConfigMap's, say).
	ExtraNamespaces []string
}

// Create makes the namespaces, the ServiceAccount and its RBAC with the
// admin's client and returns a copy of admin that impersonates the account.
func (sa ServiceAccount) Create(ctx context.Context, c client.Client, admin *rest.Config) (*rest.Config, error) {
	for _, ns := range append([]string{sa.Namespace}, sa.ExtraNamespaces...) {
		err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("creating namespace %s: %w", ns, err)
		}
	}
	account := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: sa.Namespace, Name: sa.Name}}
	if err := c.Create(ctx, account); err != nil {
		return nil, fmt.Errorf("creating the ServiceAccount: %w", err)
	}
	for _, file := range sa.Files {
		objs, err := readObjects(filepath.Join(sa.RBACDir, file))
		if err != nil {
			return nil, err
		}
		for _, obj := range objs {
			if (obj.GetKind() == "Role" || obj.GetKind() == "RoleBinding") && obj.GetNamespace() == "" {
				obj.SetNamespace(sa.Namespace)
			}
			if err := c.Create(ctx, obj); err != nil {
				return nil, fmt.Errorf("%s: creating %s %s: %w", file, obj.GetKind(), obj.GetName(), err)
			}
		}
	}
	impersonating := rest.CopyConfig(admin)
	impersonating.Impersonate = rest.ImpersonationConfig{UserName: sa.UserName()}
	return impersonating, nil
}

// UserName is how the apiserver (and its audit log) names the account.
func (sa ServiceAccount) UserName() string {
	return serviceaccount.MakeUsername(sa.Namespace, sa.Name)
}
