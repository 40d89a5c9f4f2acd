package webhook_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/api/scheme"
	"github.com/nodeslo/nodeslo-controller/internal/manager/managertest"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
)

// The suite runs the manager that cmd/ runs (manager.New, webhook enabled)
// against envtest's kube-apiserver and etcd, as a ServiceAccount bound only
// to the RBAC manifests in config/rbac. envtest installs the generated
// config/webhook/manifests.yaml (scope, failure policy and timeout as
// deployed), pointing it at the manager's webhook server with a serving
// certificate of its own.
const (
	configNamespace = sloconfig.DefaultConfigMapNamespace
	configName      = sloconfig.DefaultConfigMapName
)

var (
	env *envtestharness.Environment
	// k8sClient is the admin's; it collects the admission warnings it receives.
	k8sClient     client.Client
	warnings      = &envtestharness.WarningCollector{}
	managerConfig *rest.Config
	stopManager   func()
)

func TestWebhook(t *testing.T) {
	envtestharness.RunSuite(t, "Webhook suite")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	envtestharness.LogToGinkgo()
	env = envtestharness.Start(envtestharness.Options{Webhook: true})
	Expect(env.WebhookInstall().ValidatingWebhooks).To(HaveLen(1))

	// Unthrottled: the rule table alone takes some 1,400 requests, which
	// client-go's default limit of 5 a second stretched to minutes.
	clientConfig := env.UnthrottledAdmin()
	clientConfig.WarningHandlerWithContext = warnings
	var err error
	k8sClient, err = client.New(clientConfig, client.Options{Scheme: scheme.New()})
	Expect(err).NotTo(HaveOccurred())

	managerConfig = env.ManagerServiceAccount(ctx, envtestharness.ManagerRBAC)
	stopManager = startManager()
})

var _ = AfterSuite(func() {
	if stopManager != nil {
		stopManager()
	}
})

// startManager builds the manager as cmd/ does, with the webhook server on
// the address and certificate envtest installed the webhook for, starts it,
// waits until the webhook answers and returns a function that stops it.
func startManager() func() {
	opts := managertest.Options()
	opts.Webhook.Enable = true
	opts.Webhook.Host, opts.Webhook.Port, opts.Webhook.CertDir = env.WebhookServing()
	opts.Controllers.MetricGate.AllowedHosts = metricAllowedHost
	running, err := managertest.Start(managerConfig, opts)
	Expect(err).NotTo(HaveOccurred())
	Eventually(func() error { return running.Manager.GetWebhookServer().StartedChecker()(nil) }).Should(Succeed())
	return func() {
		Expect(running.Stop()).To(Succeed())
	}
}
