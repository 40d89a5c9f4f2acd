package envtestharness

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/api/scheme"
	"github.com/nodeslo/nodeslo-controller/test/localcluster"
)

// Options are what a suite adds to the plain control plane.
type Options struct {
	// CRDDir replaces config/crd/bases (an empty directory: no CRD);
	// ExtraCRDs are CRD files installed beside it.
	CRDDir    string
	ExtraCRDs []string
	// Webhook installs config/webhook/manifests.yaml, pointed at a local
	// address the manager's webhook server must serve (WebhookInstall).
	Webhook bool
	// APIServerFlags are added to kube-apiserver's command line.
	APIServerFlags map[string]string
	// AttachOutput shows kube-apiserver's and etcd's own logs.
	AttachOutput bool
}

// Environment is a running control plane with the project's CRDs.
type Environment struct {
	*localcluster.Cluster
	// Client is the administrator's, with the project's scheme: it sets up
	// fixtures and observes.
	Client client.Client
}

// Start starts kube-apiserver and etcd from KUBEBUILDER_ASSETS, installs the
// CRDs and stops them again when the calling node ends (after AfterSuite
// when called from BeforeSuite).
func Start(opts Options) *Environment {
	ginkgo.GinkgoHelper()
	crdDir := opts.CRDDir
	if crdDir == "" {
		crdDir = RepoPath("config", "crd", "bases")
	}
	var webhooks []string
	if opts.Webhook {
		webhooks = []string{RepoPath("config", "webhook", "manifests.yaml")}
	}
	cluster, err := localcluster.Start(localcluster.Options{
		AssetsDir:        AssetsDir(),
		CRDDir:           crdDir,
		ExtraCRDs:        opts.ExtraCRDs,
		WebhookManifests: webhooks,
		APIServerFlags:   opts.APIServerFlags,
		AttachOutput:     opts.AttachOutput,
	})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(func() { gomega.Expect(cluster.Stop()).To(gomega.Succeed()) })
	admin, err := client.New(cluster.Admin, client.Options{Scheme: scheme.New()})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return &Environment{Cluster: cluster, Client: admin}
}

// UnthrottledAdmin is a copy of the administrator's config without
// client-go's client-side rate limit. Admin (and Client, made from it)
// keep client-go's default of 5 requests a second with bursts of 10: a
// suite that sends hundreds of requests, such as the dry runs of test/crd
// or the ConfigMap writes of internal/webhook, spends minutes waiting on
// that limit and not on the apiserver. The manager's own config, made from
// Admin by ManagerServiceAccount, gets the deployed limits from its options.
func (e *Environment) UnthrottledAdmin() *rest.Config {
	cfg := rest.CopyConfig(e.Admin)
	// A negative QPS means no rate limiter (client-go's rest.RESTClientFor).
	cfg.QPS, cfg.Burst = -1, 0
	return cfg
}

// UnthrottledClient is a client of UnthrottledAdmin with the project's scheme.
func (e *Environment) UnthrottledClient() client.Client {
	ginkgo.GinkgoHelper()
	c, err := client.New(e.UnthrottledAdmin(), client.Options{Scheme: scheme.New()})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return c
}
