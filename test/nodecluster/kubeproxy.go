package nodecluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"sigs.k8s.io/yaml"
)

// startKubeProxy starts kube-proxy in iptables mode, as the node's Service
// proxy: a pod's connection to a ClusterIP (the kubernetes Service's
// 10.96.0.1:443 among them) is DNATed to one of the Service's endpoints. It
// runs as a process like the control plane (not as a DaemonSet), under the
// identity the bootstrap RBAC gives kube-proxies (system:kube-proxy, bound
// to system:node-proxier). It is ready once it has written the rules
// (/healthz).
//
// What it changes on the host: iptables chains named KUBE-* in the nat,
// filter and mangle tables of iptables and ip6tables (removeKubeChains
// deletes them), and net.ipv4.conf.all.route_localnet (NodePorts on
// 127.0.0.1; saved and restored with the other sysctls). Its conntrack
// settings are all 0, which leaves the host's conntrack table size and
// timeouts alone.
func (c *Cluster) startKubeProxy(ctx context.Context) error {
	kubeconfig, err := c.componentKubeconfig("kube-proxy", "system:kube-proxy")
	if err != nil {
		return err
	}
	config, err := yaml.Marshal(c.kubeProxyConfig(kubeconfig))
	if err != nil {
		return err
	}
	configFile := filepath.Join(c.layout.PKIDir(), "kube-proxy.yaml")
	if err := os.WriteFile(configFile, config, 0o644); err != nil {
		return err
	}
	p, err := startProcess(c.layout, "kube-proxy", filepath.Join(c.opts.Assets, "kube-proxy"),
		"--config="+configFile,
		"--v=2",
	)
	if err != nil {
		return err
	}
	c.processes = append(c.processes, p)
	return waitFor(ctx, "kube-proxy", p, 2*time.Minute,
		httpOK(fmt.Sprintf("http://127.0.0.1:%d/healthz", c.ports.kubeProxyHealthz)))
}

// kubeProxyMode is kube-proxy's mode: the iptables binary is installed with
// the node's packages.
const kubeProxyMode = "iptables"

// kubeProxyConfig is the KubeProxyConfiguration: iptables mode, the pods'
// subnet as the cluster's (traffic from it is local, the rest is
// masqueraded), the node's name, health and metrics on loopback, and no
// conntrack tuning.
func (c *Cluster) kubeProxyConfig(kubeconfig string) map[string]any {
	return map[string]any{
		"apiVersion":         "kubeproxy.config.k8s.io/v1alpha1",
		"kind":               "KubeProxyConfiguration",
		"clientConnection":   map[string]any{"kubeconfig": kubeconfig},
		"mode":               kubeProxyMode,
		"hostnameOverride":   c.opts.NodeName,
		"clusterCIDR":        c.opts.PodSubnet,
		"detectLocalMode":    "ClusterCIDR",
		"healthzBindAddress": fmt.Sprintf("127.0.0.1:%d", c.ports.kubeProxyHealthz),
		"metricsBindAddress": fmt.Sprintf("127.0.0.1:%d", c.ports.kubeProxyMetrics),
		"conntrack": map[string]any{
			"maxPerCore":            0,
			"min":                   0,
			"tcpEstablishedTimeout": "0s",
			"tcpCloseWaitTimeout":   "0s",
		},
		"iptables": map[string]any{"syncPeriod": "30s", "minSyncPeriod": "1s"},
	}
}
