package nodecluster

import (
	"context"
	"fmt"
	"os/exec"
	"time"
)

// StartCertManager installs cert-manager's CRDs from crdDir (the
// deploy/crds directory of its Go module, at the version the binary was
// built from) and runs binary, hack/cluster/cert-manager, twice: its
// controller (Issuers, Certificates, CertificateRequests) and its CA
// injector (caBundle of webhook configurations), as processes of the
// cluster that Stop stops like the others. Both use the administrator's
// kubeconfig: the chart's RBAC for cert-manager is not what is under test.
// Each is waited for on its /healthz. cert-manager's own webhook is not run: it only validates and defaults
// cert-manager's objects, and its CRDs need no conversion.
func (c *Cluster) StartCertManager(ctx context.Context, binary, crdDir string) error {
	start := time.Now()
	kubectl := exec.CommandContext(ctx, c.Kubectl(), "--kubeconfig", c.Kubeconfig(),
		"apply", "--server-side", "-f", crdDir)
	if out, err := kubectl.CombinedOutput(); err != nil {
		return fmt.Errorf("applying cert-manager's CRDs from %s: %w: %s", crdDir, err, out)
	}
	wait := exec.CommandContext(ctx, c.Kubectl(), "--kubeconfig", c.Kubeconfig(),
		"wait", "--for=condition=Established", "--timeout=60s", "-f", crdDir)
	if out, err := wait.CombinedOutput(); err != nil {
		return fmt.Errorf("waiting for cert-manager's CRDs: %w: %s", err, out)
	}
	ports, err := freePorts(2)
	if err != nil {
		return err
	}
	for i, mode := range []string{"controller", "cainjector"} {
		healthz := fmt.Sprintf("127.0.0.1:%d", ports[i])
		p, err := startProcess(c.layout, "cert-manager-"+mode, binary, mode,
			"-kubeconfig="+c.Kubeconfig(), "-healthz-address="+healthz)
		if err != nil {
			return err
		}
		c.processes = append(c.processes, p)
		// The controller is healthy once its informers synced, the
		// injector once its manager serves.
		if err := waitFor(ctx, "cert-manager "+mode, p, 2*time.Minute, httpOK("http://"+healthz+"/healthz")); err != nil {
			return err
		}
	}
	const step = "cert-manager (CRDs, controller, cainjector)"
	c.Timings = append(c.Timings, Timing{step, time.Since(start)})
	c.opts.Logf("%s: %s", step, time.Since(start).Round(time.Millisecond))
	return nil
}

// StopKubelet stops the node's kubelet (SIGTERM; its pods' containers keep
// running, as when a kubelet dies): the Node's lease and status stop being
// renewed, and kube-controller-manager's node lifecycle controller marks it
// NotReady after NodeMonitorGracePeriod.
func (c *Cluster) StopKubelet() {
	c.stopProcess(c.kubelet)
}

// StartKubelet starts the kubelet again after StopKubelet and waits for
// its Node to be Ready.
func (c *Cluster) StartKubelet(ctx context.Context) error {
	if c.kubelet.running() {
		return fmt.Errorf("the kubelet runs already (PID %d)", c.kubelet.pid())
	}
	if err := c.startKubelet(ctx); err != nil {
		return err
	}
	return c.waitNodeReady(ctx)
}
