package nodecluster

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"time"
)

// The admission plugins of a production cluster (kubeadm's, which are
// kube-apiserver's defaults) plus NodeRestriction: the kubelet has a node
// identity (system:node:<name>), so it may only change its own Node and the
// Pods bound to it. PodSecurity is among the defaults; it is named anyway,
// since the scenarios rely on it.
var admissionPlugins = []string{"NodeRestriction", "PodSecurity"}

// startAPIServer starts kube-apiserver on every address of the host (pods
// reach it on the node's IP), with service-account token signing, the
// Node and RBAC authorizers, aggregator routing (a webhook Service is
// reached through its EndpointSlices' pod IPs, so no kube-proxy is needed
// for admission webhooks), a client certificate to reach kubelets, and the
// aggregation layer's front proxy (kube-controller-manager and
// kube-scheduler read its requestheader settings, as any delegating server).
func (c *Cluster) startAPIServer(ctx context.Context) error {
	pki := c.layout.PKIDir()
	serviceIP, err := firstServiceIP(c.opts.ServiceSubnet)
	if err != nil {
		return err
	}
	servingCert, servingKey, err := c.ca.issue(certRequest{
		name:       "apiserver",
		commonName: "kube-apiserver",
		server:     true,
		dnsNames:   []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"},
		ips:        []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP(c.opts.NodeIP), serviceIP},
	})
	if err != nil {
		return err
	}
	kubeletClientCert, kubeletClientKey, err := c.ca.issue(certRequest{
		name:          "apiserver-kubelet-client",
		commonName:    "kube-apiserver-kubelet-client",
		organizations: []string{"system:masters"},
	})
	if err != nil {
		return err
	}
	frontProxy, err := newAuthority(pki, "front-proxy-ca")
	if err != nil {
		return err
	}
	proxyClientCert, proxyClientKey, err := frontProxy.issue(certRequest{name: "front-proxy-client", commonName: "front-proxy-client"})
	if err != nil {
		return err
	}
	saKey, saPub, err := serviceAccountKeys(pki)
	if err != nil {
		return err
	}
	c.serviceAccountKey = saKey
	p, err := startProcess(c.layout, "kube-apiserver", filepath.Join(c.opts.Assets, "kube-apiserver"),
		"--etcd-servers="+c.ports.etcdClient,
		"--bind-address=0.0.0.0",
		fmt.Sprintf("--secure-port=%d", c.ports.apiserver),
		"--advertise-address="+c.opts.NodeIP,
		"--tls-cert-file="+servingCert,
		"--tls-private-key-file="+servingKey,
		"--client-ca-file="+c.ca.CertFile(),
		"--authorization-mode=Node,RBAC",
		"--enable-admission-plugins="+strings.Join(admissionPlugins, ","),
		"--allow-privileged=true",
		"--enable-aggregator-routing=true",
		"--service-cluster-ip-range="+c.opts.ServiceSubnet,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file="+saPub,
		"--service-account-signing-key-file="+saKey,
		"--kubelet-client-certificate="+kubeletClientCert,
		"--kubelet-client-key="+kubeletClientKey,
		"--kubelet-certificate-authority="+c.ca.CertFile(),
		"--kubelet-preferred-address-types=InternalIP",
		"--proxy-client-cert-file="+proxyClientCert,
		"--proxy-client-key-file="+proxyClientKey,
		"--requestheader-client-ca-file="+frontProxy.CertFile(),
		"--requestheader-allowed-names=front-proxy-client",
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--profiling=false",
	)
	if err != nil {
		return err
	}
	c.processes = append(c.processes, p)
	return waitFor(ctx, "kube-apiserver", p, 2*time.Minute, func(ctx context.Context) error {
		_, err := c.clientset.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return err
	})
}

// firstServiceIP is the kubernetes Service's ClusterIP: the subnet's first
// address after the network's.
func firstServiceIP(subnet string) (net.IP, error) {
	_, network, err := net.ParseCIDR(subnet)
	if err != nil {
		return nil, fmt.Errorf("service subnet: %w", err)
	}
	ip := network.IP.To4()
	if ip == nil {
		return nil, fmt.Errorf("service subnet %s: only IPv4 is supported", subnet)
	}
	first := make(net.IP, len(ip))
	copy(first, ip)
	first[3]++
	return first, nil
}
