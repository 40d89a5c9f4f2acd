// Command smoke proves that a node runs here end to end: it starts the
// cluster of test/nodecluster (etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler, containerd, a kubelet), waits for the Node to be Ready,
// runs a Pod of the locally made image under the restricted Pod Security
// level until the kubelet's readiness probe passes, reads its log through
// the apiserver and the kubelet, answers its port from the host, deletes it;
// from a second Pod reaches the apiserver through the kubernetes Service's
// ClusterIP (kube-proxy's rules) with the pod's token and CA; with -image,
// loads that image into containerd and runs its /manager --version in a
// Pod, and with -install applies that rendering of the manifests and waits
// for the controller's Deployment to be available; then stops everything and checks that the host is as it was.
//
// Usage (as root): go run ./hack/cluster/smoke -dir /tmp/nodeslo-cluster -assets <envtest store>/k8s/1.37.2-linux-amd64
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/nodeslo/nodeslo-controller/test/nodecluster"
)

func main() {
	dir := flag.String("dir", "/tmp/nodeslo-cluster",
		"the cluster's directory (hack/cluster/install-node-packages.sh prepared it)")
	assets := flag.String("assets", "",
		"directory of etcd, kube-apiserver, kubectl, kubelet, kube-proxy, kube-controller-manager and kube-scheduler")
	hold := flag.Bool("hold", false, "keep the cluster running after the checks, until SIGINT or SIGTERM")
	img := flag.String("image", "",
		"also load this image from -image-tool's storage into containerd and run its /manager --version in a Pod")
	imageTool := flag.String("image-tool", "podman", "the container tool whose storage holds -image (podman or docker)")
	install := flag.String("install", "",
		"with -image: also apply this rendering of the manifests, files separated by commas (make "+
			"build-installer's dist/crds.yaml,dist/install.yaml for that image) but cert-manager's objects, "+
			"and wait for the Deployment to be available")
	flag.Parse()
	if err := run(*dir, *assets, *hold, *img, *imageTool, *install); err != nil {
		fmt.Fprintf(os.Stderr, "smoke: FAILED: %v\n", err)
		os.Exit(1)
	}
	fmt.Println("smoke: PASSED")
}

func logf(format string, args ...any) {
	fmt.Printf("%s smoke: %s\n", time.Now().Format("15:04:05.000"), fmt.Sprintf(format, args...))
}

func run(dir, assets string, hold bool, img, imageTool, install string) (err error) {
	if os.Geteuid() != 0 {
		return errors.New("the kubelet and containerd need root")
	}
	if assets == "" {
		return errors.New("-assets is required")
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer cancel()

	// The host as it was before any run: what a crashed run left goes first.
	before, err := nodecluster.PrepareHost(dir, logf)
	if err != nil {
		return err
	}
	logf("host before: sysctls %v; host paths present %v", before.Sysctls, before.HostPaths)

	start := time.Now()
	cluster, err := nodecluster.Start(ctx, nodecluster.Options{Dir: dir, Assets: assets, Logf: logf})
	if err != nil {
		return err
	}
	logf("cluster started, Node Ready after %s", time.Since(start).Round(time.Millisecond))
	defer func() {
		stopStart := time.Now()
		stopErr := cluster.StopAndCompare(context.WithoutCancel(ctx), before)
		logf("stopped and cleaned up in %s", time.Since(stopStart).Round(time.Millisecond))
		err = errors.Join(err, stopErr)
		if err == nil {
			logf("nothing left behind (%s), host state as before", dir)
		}
	}()

	kubectl(cluster, "get", "nodes", "-o", "wide")
	if err := runPod(ctx, cluster); err != nil {
		kubectl(cluster, "get", "events", "-A")
		return err
	}
	if err := checkKubernetesService(ctx, cluster); err != nil {
		kubectl(cluster, "get", "events", "-A")
		return err
	}
	if img != "" {
		if err := checkImage(ctx, cluster, imageTool, img); err != nil {
			kubectl(cluster, "get", "events", "-A")
			return err
		}
		if install != "" {
			if err := checkDeployment(ctx, cluster, install); err != nil {
				kubectl(cluster, "get", "events", "-A")
				return err
			}
		}
	}
	for _, timing := range cluster.Timings {
		logf("timing: %-55s %s", timing.Step, timing.Duration.Round(time.Millisecond))
	}
	if hold {
		logf("holding the cluster: KUBECONFIG=%s; Ctrl-C stops it", cluster.Kubeconfig())
		<-ctx.Done()
	}
	return nil
}

// kubectl prints the output of a kubectl command on the cluster, as
// evidence.
func kubectl(cluster *nodecluster.Cluster, args ...string) {
	cmd := exec.Command(cluster.Kubectl(), append([]string{"--kubeconfig", cluster.Kubeconfig()}, args...)...)
	out, err := cmd.CombinedOutput()
	fmt.Printf("$ kubectl %s\n%s", strings.Join(args, " "), out)
	if err != nil {
		fmt.Printf("(%v)\n", err)
	}
}
