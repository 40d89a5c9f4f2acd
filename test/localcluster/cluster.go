package localcluster

import (
	"errors"
	"fmt"
	"os"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/nodeslo/nodeslo-controller/api/scheme"
)

// Options say where the binaries, the CRDs and (optionally) the etcd data are.
type Options struct {
	// AssetsDir holds kube-apiserver and etcd (KUBEBUILDER_ASSETS).
	AssetsDir string
	// CRDDir holds the CRD manifests to install before Start returns;
	// ExtraCRDs are more manifests (files) to install with them.
	CRDDir    string
	ExtraCRDs []string
	// EtcdDataDir keeps etcd's data between runs; empty means a temporary
	// directory that Stop removes.
	EtcdDataDir string
	// AttachOutput sends the control plane's own logs to stdout/stderr.
	AttachOutput bool
	// WebhookManifests are admission webhook configurations to install,
	// pointed at a local serving address and certificate (see WebhookInstall).
	WebhookManifests []string
	// APIServerFlags are added to kube-apiserver's command line (an audit
	// policy, say); they stay across StopAPIServer and StartAPIServer.
	APIServerFlags map[string]string
	// EtcdFlags are added to etcd's command line (a larger backend quota, say).
	EtcdFlags map[string]string
}

// Cluster is a running control plane and an administrator's access to it.
type Cluster struct {
	env *envtest.Environment
	// certDir keeps kube-apiserver's serving certificate across a restart
	// (see StartAPIServer); Stop removes it.
	certDir string
	// Admin is a client config of a member of system:masters.
	Admin *rest.Config
	// AdminKubeconfig is Admin as a kubeconfig file's content.
	AdminKubeconfig []byte
}

// adminUser is the identity of the kubeconfig handed to people and kubectl:
// system:masters passes every authorization check, as kind's admin does.
var adminUser = envtest.User{Name: "local-admin", Groups: []string{"system:masters"}}

// controlPlaneStopTimeout bounds the wait for kube-apiserver, then etcd, to
// exit on Stop before envtest kills them and fails the teardown (envtest's
// own 20 s did so twice in CI, after suites whose specs had all passed).
// kube-apiserver drains the requests in flight before it exits, and each may
// last its 60 s request timeout: the bound is longer than that.
const controlPlaneStopTimeout = 2 * time.Minute

// controlPlaneStartTimeout bounds the wait for etcd, then kube-apiserver, to
// serve. envtest's own 20 s is too short on a busy 2-core machine: the first
// start after a build (a cold page cache for a 120 MB binary), beside suites
// compiling in parallel, timed out five times in a row.
const controlPlaneStartTimeout = 2 * time.Minute

// Start runs etcd and kube-apiserver, installs the CRDs and returns once the
// apiserver serves them. Stop must be called even when the caller fails later.
func Start(opts Options) (*Cluster, error) {
	if opts.AssetsDir == "" {
		return nil, errors.New(
			"no control-plane binaries: set KUBEBUILDER_ASSETS (hack/setup-envtest.sh prints the directory)")
	}
	// envtest makes a fresh certificate directory, hence a new serving CA,
	// each time kube-apiserver starts unless it is given one: with a
	// directory of our own, clients keep trusting it across a restart.
	certDir, err := os.MkdirTemp("", "nodeslo-apiserver-")
	if err != nil {
		return nil, fmt.Errorf("creating the apiserver's certificate directory: %w", err)
	}
	env := newEnvironment(opts, certDir)
	c := &Cluster{env: env, certDir: certDir}
	if _, err := env.Start(); err != nil {
		_ = c.Stop()
		return nil, fmt.Errorf("starting the control plane: %w", err)
	}
	admin, err := env.AddUser(adminUser, nil)
	if err != nil {
		_ = c.Stop()
		return nil, fmt.Errorf("adding the admin user: %w", err)
	}
	c.Admin = admin.Config()
	if c.AdminKubeconfig, err = admin.KubeConfig(); err != nil {
		_ = c.Stop()
		return nil, fmt.Errorf("writing the admin kubeconfig: %w", err)
	}
	return c, nil
}

// newEnvironment is the envtest environment Start runs: the binaries, the
// CRDs, the webhooks, the flags and the timeouts of opts, with kube-apiserver's
// certificates in certDir.
func newEnvironment(opts Options, certDir string) *envtest.Environment {
	env := &envtest.Environment{
		BinaryAssetsDirectory:    opts.AssetsDir,
		CRDDirectoryPaths:        append([]string{opts.CRDDir}, opts.ExtraCRDs...),
		ErrorIfCRDPathMissing:    true,
		Scheme:                   scheme.New(),
		AttachControlPlaneOutput: opts.AttachOutput,
		// Set here, not on the components: envtest's Start overwrites
		// each component's own StopTimeout with this one.
		ControlPlaneStopTimeout:  controlPlaneStopTimeout,
		ControlPlaneStartTimeout: controlPlaneStartTimeout,
	}
	env.ControlPlane.APIServer = &envtest.APIServer{CertDir: certDir}
	for name, value := range opts.APIServerFlags {
		env.ControlPlane.APIServer.Configure().Set(name, value)
	}
	if len(opts.WebhookManifests) > 0 {
		env.WebhookInstallOptions = envtest.WebhookInstallOptions{Paths: opts.WebhookManifests}
	}
	if opts.EtcdDataDir != "" {
		env.ControlPlane.Etcd = &envtest.Etcd{DataDir: opts.EtcdDataDir}
	}
	if len(opts.EtcdFlags) > 0 && env.ControlPlane.Etcd == nil {
		env.ControlPlane.Etcd = &envtest.Etcd{}
	}
	for name, value := range opts.EtcdFlags {
		env.ControlPlane.Etcd.Configure().Set(name, value)
	}
	return env
}

// WebhookInstall says which webhook configurations Start installed and where
// they send admission requests: the manager's webhook server must listen on
// LocalServingHost:LocalServingPort with the certificate in LocalServingCertDir.
func (c *Cluster) WebhookInstall() envtest.WebhookInstallOptions {
	return c.env.WebhookInstallOptions
}

// Stop ends kube-apiserver and etcd and waits for them to exit.
func (c *Cluster) Stop() error {
	err := c.env.Stop()
	_ = os.RemoveAll(c.certDir)
	if err != nil {
		return fmt.Errorf("stopping the control plane: %w", err)
	}
	return nil
}
