package envtestharness

// WebhookServing is where the manager's admission webhook server must
// listen, and the directory of its certificate, for the control plane's
// webhook configuration (Options.Webhook) to reach it.
func (e *Environment) WebhookServing() (host string, port int, certDir string) {
	install := e.WebhookInstall()
	return install.LocalServingHost, install.LocalServingPort, install.LocalServingCertDir
}
