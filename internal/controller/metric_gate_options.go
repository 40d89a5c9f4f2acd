package controller

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
)

// serviceAccountDir is where the kubelet mounts the Pod's ServiceAccount
// token: never a credential a strategy may name.
const serviceAccountDir = "/var/run/secrets/kubernetes.io"

// MetricGateOptions are what the operator allows the health gate's metric
// checks (docs/rollout.md#metric-gate-credentials): the strategy chooses
// among them, never beyond.
type MetricGateOptions struct {
	// CredentialsDir holds the credentials a check may name, one
	// directory each (a Secret volume) with a token, a ca.crt or both, and
	// the addresses the credential may be sent to; "": none, and a check
	// naming credentials is an error.
	CredentialsDir string
	// AllowedHosts is the comma-separated list of hosts the address of a
	// check without credentials may name (rollout.ParseAllowedHosts); "":
	// none, and such a check is an error.
	AllowedHosts string
}

func (o *MetricGateOptions) bindFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.CredentialsDir, "metric-gate-credentials-dir", o.CredentialsDir,
		"Directory of the credentials a metric check may name: one entry (a mounted Secret) each, "+
			"with token and/or ca.crt, and addresses: the https addresses it may be sent to. "+
			"Empty: no check may name credentials.")
	fs.StringVar(&o.AllowedHosts, "metric-gate-allowed-hosts", o.AllowedHosts,
		"Comma-separated hosts (host or host:port) the address of a metric check without credentials may name. "+
			"Empty: none, so every metric check must name credentials.")
}

// validateCredentialsDir refuses a directory that is not absolute, or
// that holds the Pod's ServiceAccount token: every entry of the directory
// is a credential a strategy may name.
func (o *MetricGateOptions) validateCredentialsDir() error {
	dir := o.CredentialsDir
	if dir == "" {
		return nil
	}
	if !filepath.IsAbs(dir) {
		return errors.New("must be an absolute path")
	}
	dir = filepath.Clean(dir)
	if dir == "/" || dir == serviceAccountDir || strings.HasPrefix(serviceAccountDir, dir+"/") ||
		strings.HasPrefix(dir, serviceAccountDir+"/") {
		return fmt.Errorf("%s holds or is within %s, the Pod's ServiceAccount credentials: "+
			"mount the metric gate's credentials in a directory of their own", dir, serviceAccountDir)
	}
	return nil
}
