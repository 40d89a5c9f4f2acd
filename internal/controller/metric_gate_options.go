package controller

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// serviceAccountDir is where the kubelet mounts the Pod's ServiceAccount
// token: never a credential a ConfigMap may name.
const serviceAccountDir = "/var/run/secrets/kubernetes.io"

// MetricGateOptions are what the operator allows the health gate's metric
// checks (docs/rollout.md#metric-gate-credentials): the ConfigMap chooses
// among them, never beyond.
type MetricGateOptions struct {
	// CredentialsDir holds the credentials a check may name, one
	// directory each (a Secret volume) with a token, a ca.crt or both;
	// "": none, and a check naming credentials is an error.
	CredentialsDir string
	// AllowedHosts is the comma-separated list of hosts a check's address
	// may name (rollout.ParseAllowedHosts); "": any.
	AllowedHosts string
}

func (o *MetricGateOptions) bindFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.CredentialsDir, "metric-gate-credentials-dir", o.CredentialsDir,
		"Directory of the credentials a metric check may name: one entry (a mounted Secret) each, "+
			"with token and/or ca.crt. Empty: no check may name credentials.")
	fs.StringVar(&o.AllowedHosts, "metric-gate-allowed-hosts", o.AllowedHosts,
		"Comma-separated hosts (host or host:port) a metric check's address may name. Empty: any.")
}

// Limits are the options as the key is checked against them; an error
// says which option is wrong.
func (o *MetricGateOptions) Limits() (rollout.MetricLimits, error) {
	hosts, err := rollout.ParseAllowedHosts(o.AllowedHosts)
	if err != nil {
		return rollout.MetricLimits{}, fmt.Errorf("--metric-gate-allowed-hosts: %w", err)
	}
	if err := o.validateCredentialsDir(); err != nil {
		return rollout.MetricLimits{}, fmt.Errorf("--metric-gate-credentials-dir: %w", err)
	}
	return rollout.MetricLimits{AllowedHosts: hosts, HasCredentials: o.CredentialsDir != ""}, nil
}

// validateCredentialsDir refuses a directory that is not absolute, or
// that holds the Pod's ServiceAccount token: every entry of the directory
// is a credential a ConfigMap may name.
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
