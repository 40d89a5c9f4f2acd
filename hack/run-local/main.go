// Command run-local is `make run-local`: it starts a local control plane
// (envtest's kube-apiserver and etcd), writes an admin kubeconfig, installs
// the CRDs, applies config/samples and runs bin/manager against it in the
// foreground, until Ctrl-C stops all of it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/api/scheme"
	"github.com/nodeslo/nodeslo-controller/test/localcluster"
)

type settings struct {
	dir              string
	persist          bool
	controlPlaneOnly bool
	managerBinary    string
	crdDir           string
	samplesDir       string
	readyTimeout     time.Duration
	webhook          bool
	webhookManifests string
	nodes            int
}

func main() {
	var s settings
	flag.StringVar(&s.dir, "dir", "bin/local",
		"Directory for the kubeconfig, the lock file and (with --persist) etcd's data.")
	flag.BoolVar(&s.persist, "persist", false, "Keep etcd's data in DIR/etcd between runs (LOCAL_PERSIST=1).")
	flag.BoolVar(&s.controlPlaneOnly, "control-plane-only", false,
		"Start only the control plane, e.g. to run the manager from an IDE (LOCAL_CONTROL_PLANE_ONLY=1).")
	flag.StringVar(&s.managerBinary, "manager", "bin/manager", "Manager binary to run.")
	flag.StringVar(&s.crdDir, "crds", "config/crd/bases", "Directory of the CRD manifests.")
	flag.StringVar(&s.samplesDir, "samples", "config/samples", "Kustomization directory of the sample objects.")
	flag.BoolVar(&s.webhook, "webhook", true,
		"Run the manager's admission webhook and install its configuration, pointing at it (LOCAL_WEBHOOK=0 turns it off).")
	flag.StringVar(&s.webhookManifests, "webhook-manifests", "config/webhook/manifests.yaml",
		"The ValidatingWebhookConfiguration to install.")
	flag.IntVar(&s.nodes, "nodes", 0,
		"Nodes to add beside the samples, a tenth of them canaries labelled "+
			canaryLabel+"=true (LOCAL_NODES=N).")
	flag.DurationVar(&s.readyTimeout, "ready-timeout", 90*time.Second,
		"How long the manager may take to write the sample NodeSLOs.")
	flag.Parse()
	if err := run(s); err != nil {
		logf("error: %v", err)
		os.Exit(1)
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[run-local] "+format+"\n", args...)
}

func run(s settings) error {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", s.dir, err)
	}
	lock, err := acquireInstanceLock(filepath.Join(s.dir, "run-local.lock"))
	if err != nil {
		return err
	}
	defer lock.release()

	// Ctrl-C reaches the whole foreground process group; SIGTERM may come
	// from make or a supervisor. Either way: stop the manager, then the
	// control plane, then return.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	started := time.Now()
	opts := localcluster.Options{AssetsDir: os.Getenv("KUBEBUILDER_ASSETS"), CRDDir: s.crdDir}
	// Kept data holds the user's own edits: the samples go in once, on the
	// first run, and are not forced over those edits afterwards.
	applySamples := true
	if s.persist {
		opts.EtcdDataDir = filepath.Join(s.dir, "etcd")
		if entries, err := os.ReadDir(opts.EtcdDataDir); err == nil && len(entries) > 0 {
			applySamples = false
		}
		if err := os.MkdirAll(opts.EtcdDataDir, 0o700); err != nil {
			return fmt.Errorf("creating %s: %w", opts.EtcdDataDir, err)
		}
		logf("starting kube-apiserver and etcd (data kept in %s)", opts.EtcdDataDir)
	} else {
		logf("starting kube-apiserver and etcd (data discarded at exit; LOCAL_PERSIST=1 keeps it)")
	}
	cluster, err := localcluster.Start(opts)
	if err != nil {
		return err
	}
	defer func() {
		logf("stopping the control plane")
		if err := cluster.Stop(); err != nil {
			logf("error: %v", err)
		}
		logf("stopped")
	}()

	kubeconfig := filepath.Join(s.dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, cluster.AdminKubeconfig, 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", kubeconfig, err)
	}
	logf("control plane up at %s, admin kubeconfig in %s, CRDs installed", cluster.Admin.Host, kubeconfig)

	c, err := client.New(cluster.Admin, client.Options{Scheme: scheme.New()})
	if err != nil {
		return fmt.Errorf("creating a client: %w", err)
	}
	if applySamples {
		applied, err := localcluster.ApplyKustomization(ctx, c, s.samplesDir)
		if err != nil {
			return err
		}
		logf("applied %d objects from %s", len(applied), s.samplesDir)
		if err := createExtraNodes(ctx, c, s.nodes); err != nil {
			return err
		}
		if s.nodes > 0 {
			logf("added %d nodes (LOCAL_NODES)", s.nodes)
		}
	} else {
		logf("kept data found: not applying %s again (remove %s to start afresh)", s.samplesDir, opts.EtcdDataDir)
	}
	nodes, err := nodeNames(ctx, c)
	if err != nil {
		return err
	}
	if len(nodes) > 12 {
		logf("nodes: %s, ... (%d in all)", strings.Join(nodes[:12], ", "), len(nodes))
	} else {
		logf("nodes: %s", strings.Join(nodes, ", "))
	}

	if s.controlPlaneOnly {
		fmt.Printf("[run-local] ready in %.1fs: control plane only; run the manager with KUBECONFIG=%s go run ./cmd, "+
			"inspect with kubectl --kubeconfig %s get nodeslo; Ctrl-C stops it\n",
			time.Since(started).Seconds(), kubeconfig, kubeconfig)
		<-ctx.Done()
		logf("interrupted")
		return nil
	}
	var webhookArgs []string
	if s.webhook {
		args, cleanup, err := installWebhook(cluster.Admin, s.webhookManifests)
		if err != nil {
			return err
		}
		defer cleanup()
		webhookArgs = args
	}
	return runManager(ctx, s, c, kubeconfig, nodes, started, webhookArgs)
}

// nodeNames lists the Nodes the manager must write a NodeSLO for.
func nodeNames(ctx context.Context, c client.Client) ([]string, error) {
	var nodes corev1.NodeList
	if err := c.List(ctx, &nodes); err != nil {
		return nil, fmt.Errorf("listing nodes: %w", err)
	}
	names := make([]string, 0, len(nodes.Items))
	for _, n := range nodes.Items {
		names = append(names, n.Name)
	}
	return names, nil
}

// runManager runs bin/manager against the local control plane until ctx ends
// or the manager exits on its own.
func runManager(ctx context.Context, s settings, c client.Client, kubeconfig string,
	nodes []string, started time.Time, extraArgs []string) error {
	addrs, err := localcluster.FreeLocalAddresses(2)
	if err != nil {
		return err
	}
	probeAddr, metricsAddr := addrs[0], addrs[1]
	// Plain-HTTP metrics on loopback and no leader election: a developer's
	// loop, not a deployment (make deploy runs it hardened).
	args := append([]string{
		"--health-probe-bind-address=" + probeAddr,
		"--metrics-bind-address=" + metricsAddr,
		"--metrics-secure=false",
	}, extraArgs...)
	logf("starting %s %s", s.managerBinary, strings.Join(args, " "))
	cmd := exec.Command(s.managerBinary, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	mgr, err := localcluster.StartProcess(cmd)
	if err != nil {
		return err
	}
	defer func() {
		logf("stopping the manager")
		mgr.Stop(15 * time.Second)
	}()

	waitErr := make(chan error, 1)
	go func() { waitErr <- waitForManager(ctx, c, "http://"+probeAddr+"/readyz", nodes, s.readyTimeout) }()
	for {
		select {
		case <-ctx.Done():
			logf("interrupted")
			return nil
		case <-mgr.Exited():
			return fmt.Errorf("the manager exited on its own: %v", mgr.Err())
		case err := <-waitErr:
			if err != nil {
				if errors.Is(ctx.Err(), context.Canceled) {
					continue
				}
				return err
			}
			fmt.Printf("[run-local] ready in %.1fs: %d nodes have their NodeSLO; "+
				"inspect with kubectl --kubeconfig %s get nodeslo (metrics: http://%s/metrics); Ctrl-C stops everything\n",
				time.Since(started).Seconds(), len(nodes), kubeconfig, metricsAddr)
		}
	}
}
