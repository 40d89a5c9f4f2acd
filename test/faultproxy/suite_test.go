package faultproxy_test

import (
	"context"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/api/scheme"
	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
	"github.com/nodeslo/nodeslo-controller/test/faultproxy"
)

// The suite runs a real kube-apiserver (envtest) with its audit log of the
// project's resources on, and the proxy in front of it. Two
// ServiceAccounts, writer-a and writer-b, with the same rights, are the
// two identities whose requests go through the proxy.
const (
	namespace = "faultproxy"
	writerA   = "writer-a"
	writerB   = "writer-b"
	// configMaps is the resource most specs write and fault.
	configMaps = "configmaps"
)

var (
	env      *envtestharness.Environment
	proxy    *faultproxy.Proxy
	auditLog *faultproxy.AuditLog
	// userA and userB are the names the apiserver knows the writers by.
	userA = serviceaccount.MakeUsername(namespace, writerA)
	userB = serviceaccount.MakeUsername(namespace, writerB)
	// configA and configB reach the apiserver through the proxy, each
	// with its ServiceAccount's token.
	configA, configB *rest.Config
)

func TestFaultProxy(t *testing.T) {
	envtestharness.RunSuite(t, "Fault proxy suite")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	var err error
	auditLog, err = faultproxy.NewAuditLog(GinkgoT().TempDir(), faultproxy.ProjectResources...)
	Expect(err).NotTo(HaveOccurred())
	env = envtestharness.Start(envtestharness.Options{APIServerFlags: auditLog.APIServerFlags()})

	proxy, err = faultproxy.Start(context.Background(), env.Admin, faultproxy.WithLog(GinkgoWriter))
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(proxy.Close)

	Expect(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}})).To(Succeed())
	Expect(env.Client.Create(ctx, writerRole())).To(Succeed())
	for _, writer := range []string{writerA, writerB} {
		Expect(env.Client.Create(ctx, &corev1.ServiceAccount{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: writer}})).To(Succeed())
		Expect(env.Client.Create(ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "faultproxy-" + writer},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "faultproxy-writer"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: writer}},
		})).To(Succeed())
	}
	configA = proxiedConfig(ctx, writerA)
	configB = proxiedConfig(ctx, writerB)
})

// writerRole grants what the specs do through the proxy, and no more:
// RBAC is the apiserver's, for the ServiceAccounts' own tokens.
func writerRole() *rbacv1.ClusterRole {
	all := []string{faultproxy.VerbGet, faultproxy.VerbList, faultproxy.VerbWatch, faultproxy.VerbCreate,
		faultproxy.VerbUpdate, faultproxy.VerbPatch, faultproxy.VerbDelete}
	return &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "faultproxy-writer"},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{configMaps}, Verbs: all},
			{APIGroups: []string{"slo.koordinator.sh"}, Resources: []string{"nodeslos"}, Verbs: all},
			{APIGroups: []string{"nodeslo.koordinator.sh"}, Resources: []string{"nodeslorollouts",
				"nodeslorollouts/status"}, Verbs: all},
		},
	}
}

// proxiedConfig is a config through the proxy with a fresh token of the
// ServiceAccount writer, without client-go's rate limit.
func proxiedConfig(ctx context.Context, writer string) *rest.Config {
	GinkgoHelper()
	token, err := faultproxy.ServiceAccountToken(ctx, env.Admin, namespace, writer)
	Expect(err).NotTo(HaveOccurred())
	cfg := proxy.Config(token)
	cfg.QPS, cfg.Burst = -1, 0
	return cfg
}

// clientsetOf and clientOf are a typed and a controller-runtime client of cfg.
func clientsetOf(cfg *rest.Config) kubernetes.Interface {
	GinkgoHelper()
	cs, err := kubernetes.NewForConfig(cfg)
	Expect(err).NotTo(HaveOccurred())
	return cs
}

func clientOf(cfg *rest.Config) client.Client {
	GinkgoHelper()
	c, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	Expect(err).NotTo(HaveOccurred())
	return c
}

// addRule puts rule in force for the spec that adds it.
func addRule(rule faultproxy.Rule) *faultproxy.ActiveRule {
	GinkgoHelper()
	active, err := proxy.Add(rule)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(active.Remove)
	return active
}
