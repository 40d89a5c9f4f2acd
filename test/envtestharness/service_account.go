package envtestharness

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"k8s.io/client-go/rest"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/test/localcluster"
)

// The manager's identity as config/rbac names it, un-kustomized.
const (
	// SystemNamespace is the namespace the manifests of config/rbac name
	// ("system", which kustomize replaces when deploying); the manager's
	// Lease lives there too.
	SystemNamespace = "system"
	// ServiceAccountName is the manager's ServiceAccount.
	ServiceAccountName = "controller-manager"
)

// RBAC manifests of config/rbac, by what they grant.
var (
	// ManagerRBAC is what the controllers and the webhook need.
	ManagerRBAC = []string{"role.yaml", "role_binding.yaml", "config_role_binding.yaml",
		"node_events_role.yaml", "node_events_role_binding.yaml"}
	// LeaderElectionRBAC is what leader election needs on top.
	LeaderElectionRBAC = []string{"leader_election_role.yaml", "leader_election_role_binding.yaml"}
)

// ManagerServiceAccount creates the manager's ServiceAccount, bound to the
// given manifests of config/rbac only, and the ConfigMap's namespace, so
// that the manager runs with no more rights than it is deployed with. It
// returns a copy of the admin's config that impersonates the account.
func (e *Environment) ManagerServiceAccount(ctx context.Context, rbacFiles ...[]string) *rest.Config {
	ginkgo.GinkgoHelper()
	var files []string
	for _, f := range rbacFiles {
		files = append(files, f...)
	}
	cfg, err := localcluster.ServiceAccount{
		Namespace: SystemNamespace, Name: ServiceAccountName,
		ExtraNamespaces: []string{sloconfig.DefaultConfigMapNamespace},
		RBACDir:         RepoPath("config", "rbac"),
		Files:           files,
	}.Create(ctx, e.Client, e.Admin)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return cfg
}
