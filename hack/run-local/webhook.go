package main

import (
	"fmt"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// installWebhook installs the ValidatingWebhookConfiguration of manifests
// (the generated config/webhook/manifests.yaml: the deployed scope, failure
// policy and timeout) pointing at a webhook server on loopback, with a
// serving certificate and CA of its own in place of cert-manager's. It
// returns the manager flags that serve it there and a function that removes
// the certificate. The configuration stays in the control plane; with
// LOCAL_PERSIST=1 the next run updates it.
func installWebhook(cfg *rest.Config, manifests string) ([]string, func(), error) {
	opts := &envtest.WebhookInstallOptions{Paths: []string{manifests}, LocalServingHost: "127.0.0.1"}
	if err := opts.Install(cfg); err != nil {
		_ = opts.Cleanup()
		return nil, nil, fmt.Errorf("installing the webhook configuration from %s: %w", manifests, err)
	}
	logf("webhook configuration installed, calling https://%s:%d (certificate in %s)",
		opts.LocalServingHost, opts.LocalServingPort, opts.LocalServingCertDir)
	args := []string{
		"--enable-webhook",
		"--webhook-host=" + opts.LocalServingHost,
		fmt.Sprintf("--webhook-port=%d", opts.LocalServingPort),
		"--webhook-cert-dir=" + opts.LocalServingCertDir,
	}
	return args, func() {
		if err := opts.Cleanup(); err != nil {
			logf("error: removing %s: %v", opts.LocalServingCertDir, err)
		}
	}, nil
}
