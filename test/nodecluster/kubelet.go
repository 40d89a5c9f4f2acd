package nodecluster

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"sigs.k8s.io/yaml"
)

// startKubelet starts the node's kubelet on containerd, with a node identity
// (system:node:<name>, so that the Node authorizer and NodeRestriction apply
// to it), its serving certificate from the cluster's CA, and the settings
// this host needs (see kubeletConfig).
func (c *Cluster) startKubelet(ctx context.Context) error {
	dir := c.layout.KubeletDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	clientCert, clientKey, err := c.ca.issue(certRequest{
		name:          "kubelet-client",
		commonName:    "system:node:" + c.opts.NodeName,
		organizations: []string{"system:nodes"},
	})
	if err != nil {
		return err
	}
	servingCert, servingKey, err := c.ca.issue(certRequest{
		name:       "kubelet-serving",
		commonName: "system:node:" + c.opts.NodeName,
		server:     true,
		dnsNames:   []string{c.opts.NodeName, "localhost"},
		ips:        []net.IP{net.ParseIP(c.opts.NodeIP), net.ParseIP("127.0.0.1")},
	})
	if err != nil {
		return err
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	server := fmt.Sprintf("https://%s", net.JoinHostPort(c.opts.NodeIP, fmt.Sprint(c.ports.apiserver)))
	user := "system:node:" + c.opts.NodeName
	if err := writeKubeconfig(kubeconfig, server, c.ca, user, clientCert, clientKey); err != nil {
		return err
	}
	config, err := yaml.Marshal(c.kubeletConfig(servingCert, servingKey))
	if err != nil {
		return err
	}
	configFile := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(configFile, config, 0o644); err != nil {
		return err
	}
	p, err := startProcess(c.layout, "kubelet", filepath.Join(c.opts.Assets, "kubelet"),
		"--config="+configFile,
		"--kubeconfig="+kubeconfig,
		"--root-dir="+c.layout.KubeletRootDir(),
		"--cert-dir="+filepath.Join(dir, "pki"),
		"--hostname-override="+c.opts.NodeName,
		"--node-ip="+c.opts.NodeIP,
		"--v=2",
	)
	if err != nil {
		return err
	}
	c.processes = append(c.processes, p)
	c.kubelet = p
	return waitFor(ctx, "kubelet", p, 2*time.Minute,
		httpOK(fmt.Sprintf("http://127.0.0.1:%d/healthz", c.ports.kubeletHealthz)))
}

// kubeletConfig is the KubeletConfiguration. What this host needs:
//   - failCgroupV1: false: the host is cgroup v1 (hybrid), which kubelet
//     1.37 refuses by default;
//   - cgroupDriver: cgroupfs (no systemd here), under a cgroup root of the
//     cluster's own, which Stop removes;
//   - no swap check, and eviction thresholds low enough not to evict on a
//     machine that is shared and busy.
//
// Otherwise it is a production kubelet: authenticated and authorized
// through the apiserver (webhook), no read-only port, pod logs and state
// under the cluster directory.
func (c *Cluster) kubeletConfig(servingCert, servingKey string) map[string]any {
	return map[string]any{
		"apiVersion":               "kubelet.config.k8s.io/v1beta1",
		"kind":                     "KubeletConfiguration",
		"failCgroupV1":             false,
		"cgroupDriver":             "cgroupfs",
		"cgroupRoot":               "/" + cgroupRoot,
		"cgroupsPerQOS":            true,
		"containerRuntimeEndpoint": "unix://" + c.layout.ContainerdSocket(),
		"imageServiceEndpoint":     "unix://" + c.layout.ContainerdSocket(),
		"address":                  c.opts.NodeIP,
		"port":                     c.ports.kubelet,
		"readOnlyPort":             0,
		"healthzBindAddress":       "127.0.0.1",
		"healthzPort":              c.ports.kubeletHealthz,
		"tlsCertFile":              servingCert,
		"tlsPrivateKeyFile":        servingKey,
		"authentication": map[string]any{
			"anonymous": map[string]any{"enabled": false},
			"webhook":   map[string]any{"enabled": true},
			"x509":      map[string]any{"clientCAFile": c.ca.CertFile()},
		},
		"authorization":             map[string]any{"mode": "Webhook"},
		"clusterDomain":             "cluster.local",
		"resolvConf":                "/etc/resolv.conf",
		"podLogsDir":                filepath.Join(c.layout.KubeletDir(), "pod-logs"),
		"failSwapOn":                false,
		"rotateCertificates":        false,
		"serverTLSBootstrap":        false,
		"registerNode":              true,
		"nodeLeaseDurationSeconds":  20,
		"nodeStatusUpdateFrequency": "5s",
		"shutdownGracePeriod":       "0s",
		"evictionHard": map[string]string{
			"memory.available":  "100Mi",
			"nodefs.available":  "1%",
			"nodefs.inodesFree": "1%",
			"imagefs.available": "1%",
		},
		"imageGCHighThresholdPercent": 99,
		"imageGCLowThresholdPercent":  98,
	}
}
