package nodecluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Options of a cluster; Start fills in the defaults.
type Options struct {
	// Dir holds the cluster's files (Layout); hack/cluster/install-node-packages.sh
	// must have written its containerd.toml and pause-image.tar.
	Dir string
	// Assets holds etcd, kube-apiserver, kubectl, kubelet,
	// kube-controller-manager and kube-scheduler of one version.
	Assets string
	// NodeName is the Node's name (default nodeslo-node).
	NodeName string
	// NodeIP is the node's address, where the apiserver and the kubelet
	// listen (default: the host's address on its default route).
	NodeIP string
	// PodSubnet is the CNI bridge's subnet (default 10.244.0.0/24).
	PodSubnet string
	// ServiceSubnet holds the Services' ClusterIPs (default 10.96.0.0/16).
	ServiceSubnet string
	// NodeMonitorGracePeriod is how long kube-controller-manager waits for a
	// silent kubelet before it marks its Node NotReady (default 20s).
	NodeMonitorGracePeriod time.Duration
	// Logf reports progress (default: nothing).
	Logf func(format string, args ...any)
}

// Cluster is a running cluster with one node.
type Cluster struct {
	opts              Options
	layout            Layout
	ports             ports
	ca                *authority
	serviceAccountKey string
	restConfig        *rest.Config
	clientset         kubernetes.Interface
	processes         []*process // in start order
	kubelet           *process
	koordletMetrics   string
	// Timings are the durations of Start's steps, in order.
	Timings []Timing
}

// Timing is how long one step took.
type Timing struct {
	Step     string
	Duration time.Duration
}

type ports struct {
	etcdClient, etcdPeer               string
	apiserver, controllerManager       int
	scheduler, kubelet, kubeletHealthz int
	kubeProxyHealthz, kubeProxyMetrics int
}

// Start cleans up what a crashed run may have left in opts.Dir, then starts
// the control plane, containerd and the kubelet, and returns once the Node
// is Ready. On an error it stops what it started.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	c := &Cluster{opts: opts, layout: Layout{Dir: opts.Dir}}
	if err := c.start(ctx); err != nil {
		return nil, errors.Join(err, c.Stop(context.WithoutCancel(ctx)))
	}
	return c, nil
}

func (o *Options) defaults() error {
	if o.Dir == "" || o.Assets == "" {
		return errors.New("nodecluster: Dir and Assets are required")
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return err
	}
	o.Dir = dir
	if o.NodeName == "" {
		o.NodeName = "nodeslo-node"
	}
	if o.NodeIP == "" {
		if o.NodeIP, err = defaultRouteIP(); err != nil {
			return err
		}
	}
	if o.PodSubnet == "" {
		o.PodSubnet = "10.244.0.0/24"
	}
	if o.ServiceSubnet == "" {
		o.ServiceSubnet = "10.96.0.0/16"
	}
	if o.NodeMonitorGracePeriod == 0 {
		o.NodeMonitorGracePeriod = 20 * time.Second
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	return nil
}

func (c *Cluster) start(ctx context.Context) error {
	steps := []struct {
		name string
		run  func(context.Context) error
	}{
		{"clean up what an earlier run left", func(context.Context) error { return c.cleanup() }},
		{"save the host's sysctls, make the CA and kubeconfigs", c.prepare},
		{"etcd", c.startEtcd},
		{"kube-apiserver", c.startAPIServer},
		{"kube-controller-manager", c.startControllerManager},
		{"kube-scheduler", c.startScheduler},
		{"containerd (sandbox image imported)", func(ctx context.Context) error {
			if err := c.writeCNIConfig(); err != nil {
				return err
			}
			return c.startContainerd(ctx)
		}},
		{"kubelet", func(ctx context.Context) error {
			if err := createCgroupRoot(); err != nil {
				return err
			}
			return c.startKubelet(ctx)
		}},
		{"Node Ready", c.waitNodeReady},
		{"kube-proxy (Service rules written)", c.startKubeProxy},
	}
	for _, step := range steps {
		start := time.Now()
		if err := step.run(ctx); err != nil {
			return fmt.Errorf("%s: %w", step.name, err)
		}
		c.Timings = append(c.Timings, Timing{step.name, time.Since(start)})
		c.opts.Logf("%s: %s", step.name, time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// prepare records the host's state, chooses the ports, and makes the CA and
// the administrator's kubeconfig and client.
func (c *Cluster) prepare(context.Context) error {
	if err := os.RemoveAll(c.layout.LogDir()); err != nil {
		return err
	}
	if err := saveSysctls(c.layout); err != nil {
		return err
	}
	if err := bridgeThroughIptables(); err != nil {
		return err
	}
	if err := recordAbsentPaths(c.layout); err != nil {
		return err
	}
	free, err := freePorts(9)
	if err != nil {
		return err
	}
	c.ports = ports{
		etcdClient:        fmt.Sprintf("http://127.0.0.1:%d", free[0]),
		etcdPeer:          fmt.Sprintf("http://127.0.0.1:%d", free[1]),
		apiserver:         free[2],
		controllerManager: free[3],
		scheduler:         free[4],
		kubelet:           free[5],
		kubeletHealthz:    free[6],
		kubeProxyHealthz:  free[7],
		kubeProxyMetrics:  free[8],
	}
	if c.ca, err = newAuthority(c.layout.PKIDir(), "ca"); err != nil {
		return err
	}
	const admin = "nodeslo-cluster-admin"
	cert, key, err := c.ca.issue(certRequest{name: "admin", commonName: admin, organizations: []string{"system:masters"}})
	if err != nil {
		return err
	}
	if err := writeKubeconfig(c.layout.Kubeconfig(), c.apiserverURL(), c.ca, admin, cert, key); err != nil {
		return err
	}
	if c.restConfig, err = clientcmd.BuildConfigFromFlags("", c.layout.Kubeconfig()); err != nil {
		return err
	}
	c.clientset, err = kubernetes.NewForConfig(c.restConfig)
	return err
}

func (c *Cluster) apiserverURL() string {
	return "https://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(c.ports.apiserver))
}

func (c *Cluster) waitNodeReady(ctx context.Context) error {
	return waitFor(ctx, "Node "+c.opts.NodeName+" Ready", c.kubelet, 3*time.Minute, func(ctx context.Context) error {
		node, err := c.clientset.CoreV1().Nodes().Get(ctx, c.opts.NodeName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, cond := range node.Status.Conditions {
			if cond.Type == corev1.NodeReady {
				if cond.Status == corev1.ConditionTrue {
					return nil
				}
				return fmt.Errorf("condition Ready is %s: %s", cond.Status, cond.Message)
			}
		}
		return errors.New("no Ready condition yet")
	})
}

// Kubeconfig is the administrator's kubeconfig (system:masters).
func (c *Cluster) Kubeconfig() string { return c.layout.Kubeconfig() }

// RESTConfig is the administrator's client configuration.
func (c *Cluster) RESTConfig() *rest.Config { return rest.CopyConfig(c.restConfig) }

// Clientset is the administrator's client.
func (c *Cluster) Clientset() kubernetes.Interface { return c.clientset }

// ContainerdSocket is the node's containerd socket (for ctr).
func (c *Cluster) ContainerdSocket() string { return c.layout.ContainerdSocket() }

// NodeName is the Node's name.
func (c *Cluster) NodeName() string { return c.opts.NodeName }

// Kubectl is the kubectl of the cluster's version.
func (c *Cluster) Kubectl() string { return filepath.Join(c.opts.Assets, "kubectl") }

// freePorts returns n distinct ports free on every address, each held
// until all are chosen.
func freePorts(n int) ([]int, error) {
	var found []int
	for len(found) < n {
		l, err := net.Listen("tcp", ":0")
		if err != nil {
			return nil, err
		}
		defer func() { _ = l.Close() }()
		port := l.Addr().(*net.TCPAddr).Port
		if slices.Contains(found, port) {
			continue
		}
		found = append(found, port)
	}
	return found, nil
}
