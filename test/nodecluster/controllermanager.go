package nodecluster

import (
	"context"
	"fmt"
	"path/filepath"
	"time"
)

// startControllerManager starts kube-controller-manager with every
// controller that is on by default (service-account tokens and the
// namespace's default ServiceAccount, Deployments and ReplicaSets,
// EndpointSlices, garbage collection, the kube-root-ca.crt ConfigMaps that
// projected tokens mount, node lifecycle, ...), each under its own
// service account as in production, and a short node-monitor grace period:
// a stopped kubelet's Node turns NotReady within seconds.
func (c *Cluster) startControllerManager(ctx context.Context) error {
	kubeconfig, err := c.componentKubeconfig("kube-controller-manager", "system:kube-controller-manager")
	if err != nil {
		return err
	}
	p, err := startProcess(c.layout, "kube-controller-manager", filepath.Join(c.opts.Assets, "kube-controller-manager"),
		"--kubeconfig="+kubeconfig,
		"--authentication-kubeconfig="+kubeconfig,
		"--authorization-kubeconfig="+kubeconfig,
		"--bind-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", c.ports.controllerManager),
		"--controllers=*",
		"--use-service-account-credentials=true",
		"--service-account-private-key-file="+c.serviceAccountKey,
		"--root-ca-file="+c.ca.CertFile(),
		"--cluster-signing-cert-file="+c.ca.CertFile(),
		"--cluster-signing-key-file="+c.ca.KeyFile(),
		"--cluster-name=nodeslo-cluster",
		"--service-cluster-ip-range="+c.opts.ServiceSubnet,
		"--allocate-node-cidrs=false",
		"--node-monitor-period=2s",
		"--node-monitor-grace-period="+c.opts.NodeMonitorGracePeriod.String(),
		"--leader-elect=false",
		"--profiling=false",
	)
	if err != nil {
		return err
	}
	c.processes = append(c.processes, p)
	return waitFor(ctx, "kube-controller-manager", p, 2*time.Minute,
		httpOK(fmt.Sprintf("https://127.0.0.1:%d/healthz", c.ports.controllerManager)))
}

// startScheduler starts kube-scheduler with its default profile.
func (c *Cluster) startScheduler(ctx context.Context) error {
	kubeconfig, err := c.componentKubeconfig("kube-scheduler", "system:kube-scheduler")
	if err != nil {
		return err
	}
	p, err := startProcess(c.layout, "kube-scheduler", filepath.Join(c.opts.Assets, "kube-scheduler"),
		"--kubeconfig="+kubeconfig,
		"--authentication-kubeconfig="+kubeconfig,
		"--authorization-kubeconfig="+kubeconfig,
		"--bind-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", c.ports.scheduler),
		"--leader-elect=false",
		"--profiling=false",
	)
	if err != nil {
		return err
	}
	c.processes = append(c.processes, p)
	return waitFor(ctx, "kube-scheduler", p, 2*time.Minute,
		httpOK(fmt.Sprintf("https://127.0.0.1:%d/healthz", c.ports.scheduler)))
}

// componentKubeconfig writes the kubeconfig of a control-plane component
// whose user is one of the bootstrap RBAC roles' subjects.
func (c *Cluster) componentKubeconfig(name, user string) (string, error) {
	cert, key, err := c.ca.issue(certRequest{name: name, commonName: user})
	if err != nil {
		return "", err
	}
	file := c.layout.KubeconfigFor(name)
	return file, writeKubeconfig(file, c.apiserverURL(), c.ca, user, cert, key)
}
