// Package rbac_test is the security review of the deployed permissions, run
// by `make test`: the manager (manager.New, as cmd/ builds it) runs against
// envtest's kube-apiserver with its audit log on, authenticated with a token
// of the ServiceAccount bound to config/rbac, through every code path that
// calls the apiserver; the requests the audit log recorded are then compared
// with what config/rbac grants that ServiceAccount: nothing denied, no grant
// unused, nothing about Secrets. It also checks what `kustomize build
// config/default` deploys: the webhook's Service, Issuer and Certificate are
// namespaced, and no role of the project grants access to Secrets.
package rbac_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
)

const (
	configNamespace = sloconfig.DefaultConfigMapNamespace
	configName      = sloconfig.DefaultConfigMapName
	systemNamespace = envtestharness.SystemNamespace
	serviceAccount  = envtestharness.ServiceAccountName
)

// managerUser is how the apiserver (and its audit log) names the manager.
var managerUser = serviceaccount.MakeUsername(systemNamespace, serviceAccount)

// root is the repository, for config/.
var root = envtestharness.RepoPath()

var (
	// auditLog is the file the apiserver writes the manager's requests to.
	auditLog string
	// k8sClient is the admin's: it sets up fixtures and observes.
	k8sClient     client.Client
	adminConfig   *rest.Config
	managerConfig *rest.Config
)

func TestRBAC(t *testing.T) {
	envtestharness.RunSuite(t, "RBAC suite")
}

// auditPolicy records every request of the manager's ServiceAccount, without
// bodies, and nothing else.
var auditPolicy = map[string]any{
	"apiVersion": "audit.k8s.io/v1",
	"kind":       "Policy",
	"omitStages": []string{"RequestReceived"},
	"rules": []any{
		map[string]any{"level": "Metadata", "users": []string{managerUser}},
		map[string]any{"level": "None"},
	},
}

var _ = BeforeSuite(func(ctx SpecContext) {
	envtestharness.LogToGinkgo()
	dir := GinkgoT().TempDir()
	policy, err := yaml.Marshal(auditPolicy)
	Expect(err).NotTo(HaveOccurred())
	policyFile := filepath.Join(dir, "audit-policy.yaml")
	Expect(os.WriteFile(policyFile, policy, 0o600)).To(Succeed())
	auditLog = filepath.Join(dir, "audit.log")

	// The log backend's default mode (blocking) writes each event before
	// the response is sent: the file is complete once the requests are.
	env := envtestharness.Start(envtestharness.Options{APIServerFlags: map[string]string{
		"audit-policy-file": policyFile,
		"audit-log-path":    auditLog,
	}})
	adminConfig, k8sClient = env.Admin, env.Client

	By("binding the ServiceAccount to every manifest of config/rbac, as config/default does")
	files, err := rbacFiles()
	Expect(err).NotTo(HaveOccurred())
	env.ManagerServiceAccount(ctx, files)

	// A token, as the pod's in-cluster config has, rather than
	// impersonation: the audit log then names the ServiceAccount as the
	// user, which the policy selects.
	managerConfig = tokenConfig(systemNamespace, serviceAccount)
})

// rbacFiles lists the resources of config/rbac/kustomization.yaml but the
// ServiceAccount, which the harness creates itself.
func rbacFiles() ([]string, error) {
	raw, err := os.ReadFile(filepath.Join(root, "config", "rbac", "kustomization.yaml"))
	if err != nil {
		return nil, err
	}
	var k struct {
		Resources []string `json:"resources"`
	}
	if err := yaml.Unmarshal(raw, &k); err != nil {
		return nil, err
	}
	var files []string
	for _, f := range k.Resources {
		if f != "service_account.yaml" {
			files = append(files, f)
		}
	}
	return files, nil
}

// tokenConfig returns a client config that authenticates with a token of the
// ServiceAccount namespace/name.
func tokenConfig(namespace, name string) *rest.Config {
	GinkgoHelper()
	clientset, err := kubernetes.NewForConfig(adminConfig)
	Expect(err).NotTo(HaveOccurred())
	token, err := clientset.CoreV1().ServiceAccounts(namespace).CreateToken(context.Background(), name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: new(int64(3600))}},
		metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	return &rest.Config{
		Host:            adminConfig.Host,
		BearerToken:     token.Status.Token,
		TLSClientConfig: rest.TLSClientConfig{CAData: adminConfig.CAData},
	}
}
