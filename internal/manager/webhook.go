package manager

import (
	"crypto/tls"
	"flag"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/nodeslo/nodeslo-controller/internal/webhook"
)

// WebhookOptions are the settings of the admission webhook server.
type WebhookOptions struct {
	// Enable serves the validating webhook for the ConfigMap. Off by
	// default, so that `go run ./cmd` needs no certificate; the deployment
	// (config/default/manager_webhook_patch.yaml) turns it on.
	Enable bool
	// Host is the address to bind ("" = every interface).
	Host string
	Port int
	// CertDir holds tls.crt and tls.key (the cert-manager Secret, mounted).
	CertDir string
}

// defaultWebhookOptions returns the settings used when no flag is given.
func defaultWebhookOptions() WebhookOptions {
	return WebhookOptions{Port: 9443, CertDir: "/tmp/k8s-webhook-server/serving-certs"}
}

// bindFlags registers one flag per webhook option on fs.
func (o *WebhookOptions) bindFlags(fs *flag.FlagSet) {
	fs.BoolVar(&o.Enable, "enable-webhook", o.Enable,
		"Serve the validating admission webhook for the slo-controller-config ConfigMap (needs --webhook-cert-dir).")
	fs.StringVar(&o.Host, "webhook-host", o.Host, "Address the webhook server binds (default: every interface).")
	fs.IntVar(&o.Port, "webhook-port", o.Port, "Port of the webhook server.")
	fs.StringVar(&o.CertDir, "webhook-cert-dir", o.CertDir,
		"Directory holding the webhook server's tls.crt and tls.key.")
}

// server returns the webhook server to give the manager, nil when
// disabled. It serves every review within the webhook's bounds on body
// size and concurrency (webhook.BoundedServer): its port answers any
// client that reaches it (docs/deploy.md#least-privilege).
func (o *WebhookOptions) server(tlsOpts []func(*tls.Config)) ctrlwebhook.Server {
	if !o.Enable {
		return nil
	}
	return webhook.BoundedServer(ctrlwebhook.NewServer(
		ctrlwebhook.Options{Host: o.Host, Port: o.Port, CertDir: o.CertDir, TLSOpts: tlsOpts}))
}

// setupWebhook registers the ConfigMap validator when the webhook is enabled,
// and makes readiness wait for its server.
func setupWebhook(mgr ctrl.Manager, opts Options) error {
	if !opts.Webhook.Enable {
		return nil
	}
	key := types.NamespacedName{Namespace: opts.Controllers.ConfigNamespace, Name: opts.Controllers.ConfigName}
	limits, err := opts.Controllers.Limits()
	if err != nil {
		return err
	}
	if err := webhook.SetupWithManager(mgr, key, limits); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("webhook", mgr.GetWebhookServer().StartedChecker()); err != nil {
		return fmt.Errorf("adding the webhook ready check: %w", err)
	}
	return nil
}
