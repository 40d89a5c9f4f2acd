// Command run-cluster is `make run-cluster`: it starts the cluster with one
// real node of test/nodecluster (etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler, containerd, a kubelet,
// kube-proxy), cert-manager (hack/cluster/cert-manager) with its CRDs, and
// loads the manager's image into the node's containerd; it writes the
// administrator's kubeconfig to -kubeconfig and waits. Deploy with
// `make deploy` or `helm install` against that kubeconfig. Ctrl-C stops
// everything and puts the host back as it was (it fails if it cannot).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/nodeslo/nodeslo-controller/test/nodecluster"
)

type settings struct {
	dir, assets, kubeconfig      string
	certManager, certManagerCRDs string
	image, imageTool             string
}

func main() {
	var s settings
	flag.StringVar(&s.dir, "dir", "/tmp/nodeslo-cluster",
		"The cluster's directory (hack/cluster/install-node-packages.sh prepared it).")
	flag.StringVar(&s.assets, "assets", "",
		"Directory of etcd, kube-apiserver, kubectl, kubelet, kube-proxy, kube-controller-manager and kube-scheduler.")
	flag.StringVar(&s.kubeconfig, "kubeconfig", "bin/cluster/kubeconfig",
		"Where to write the administrator's kubeconfig (removed on exit).")
	flag.StringVar(&s.certManager, "cert-manager", "", "hack/cluster/cert-manager's binary (empty: no cert-manager).")
	flag.StringVar(&s.certManagerCRDs, "cert-manager-crds", "", "The deploy/crds directory of cert-manager's module.")
	flag.StringVar(&s.image, "image", "", "An image of -image-tool's storage to load into containerd (empty: none).")
	flag.StringVar(&s.imageTool, "image-tool", "podman", "The container tool whose storage holds -image.")
	flag.Parse()
	if err := run(s); err != nil {
		logf("error: %v", err)
		os.Exit(1)
	}
}

func logf(format string, args ...any) {
	fmt.Printf("%s run-cluster: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func run(s settings) (err error) {
	if os.Geteuid() != 0 {
		return errors.New("the kubelet and containerd need root")
	}
	if s.assets == "" {
		return errors.New("-assets is required")
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer cancel()

	before, err := nodecluster.PrepareHost(s.dir, logf)
	if err != nil {
		return err
	}
	start := time.Now()
	cluster, err := nodecluster.Start(ctx, nodecluster.Options{Dir: s.dir, Assets: s.assets, Logf: logf})
	if err != nil {
		return err
	}
	defer func() {
		logf("stopping the cluster")
		if removeErr := os.Remove(s.kubeconfig); removeErr != nil && !errors.Is(removeErr, os.ErrNotExist) {
			err = errors.Join(err, removeErr)
		}
		err = errors.Join(err, cluster.StopAndCompare(context.WithoutCancel(ctx), before))
		if err == nil {
			logf("stopped; nothing left behind, the host as before")
		}
	}()
	if s.certManager != "" {
		if err := cluster.StartCertManager(ctx, s.certManager, s.certManagerCRDs); err != nil {
			return err
		}
	}
	if s.image != "" {
		if _, err := cluster.LoadImage(ctx, s.imageTool, s.image); err != nil {
			return err
		}
	}
	data, err := os.ReadFile(cluster.Kubeconfig())
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.kubeconfig), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(s.kubeconfig, data, 0o600); err != nil {
		return err
	}
	logf("ready in %s; node %s, component logs in %s", time.Since(start).Round(time.Millisecond),
		cluster.NodeName(), filepath.Join(s.dir, "logs"))
	repository, tag := nodecluster.SplitImage(s.image)
	fmt.Printf(`
In another terminal:
  export KUBECONFIG=%[1]s
  %[3]s create namespace koordinator-system   # Koordinator's; the manifests expect it
  make deploy IMG=%[2]s KUBECTL=%[3]s
  # or: bin/helm install nodeslo dist/chart -n koordinator-system \
  #       --set manager.image.repository=%[4]s --set manager.image.tag=%[5]s
  %[3]s get pods -A -o wide
  %[3]s get nodeslo
Ctrl-C here stops the cluster and cleans up.
`, s.kubeconfig, s.image, cluster.Kubectl(), repository, tag)
	<-ctx.Done()
	return nil
}
