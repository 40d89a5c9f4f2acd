// Command bench is `make bench`: it measures the manager against a real
// kube-apiserver at BENCH_NODES realistic Nodes, phase by phase, side by side
// with the floor (a plain client writing the same NodeSLOs), and writes the
// figures to bin/bench/results.json and a table to stdout. Figures are
// printed, never asserted against times; write and reconcile counts are
// checked, reported as a pass/fail column, and make the exit status 1 when
// one is wrong.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/nodeslo/nodeslo-controller/api/scheme"
	"github.com/nodeslo/nodeslo-controller/test/localcluster"
)

type settings struct {
	nodes         int
	statusUpdates int
	regimes       string
	// repeat is how many times each regime's phases run, floor and
	// manager in turn.
	repeat        int
	managerBinary string
	// managerFlags are more flags for every manager started, after the
	// regime's, e.g. --watch-list-client to measure its effect.
	managerFlags string
	crdDir       string
	outDir       string
	// sweep lists node counts to run one after the other, then plot.
	sweep string
	// floorWatches has the floor watch NodeSLOs as metadata and list the
	// Nodes once in cold, as any controller of NodeSLOs must (the
	// default); without it the floor only writes, to tell the cost of
	// that watch and list from the rest.
	floorWatches bool
	// floorStamps has the floor write, with each spec, the two annotations
	// the manager writes with it (spec-digest, spec-written-at), to tell
	// what their bytes cost kube-apiserver from the rest of the manager's
	// work.
	floorStamps bool
	// cpuProfileSeconds, when positive, has change-all and restart take a
	// CPU profile of the manager for that long, from the phase's start,
	// and cold, change-all and restart one of kube-apiserver (the first
	// two for the floor too).
	cpuProfileSeconds int
	// kwok, when set, has kwok keep the Nodes alive at its pace
	// (BENCH_KWOK), with kwokBinary; steady is the steady phase's length.
	kwok       *kwokPace
	kwokBinary string
	steady     time.Duration
	// koordinatorBinary, when set, adds Koordinator's koord-manager as a
	// third side of each regime (BENCH_KOORDINATOR), with the CRDs of
	// koordinatorCRDs beside this project's.
	koordinatorBinary string
	koordinatorCRDs   string
}

// etcdFlags raise etcd's limits for the largest runs. Its default backend
// quota, 2 GiB, is near what 50,000 Nodes of about 9 KB and every phase's
// NodeSLO writes (floor and manager, each repetition) add up to between two
// of the apiserver's compactions; once full, etcd refuses every write.
var etcdFlags = map[string]string{"quota-backend-bytes": strconv.Itoa(8 << 30)}

// apiServerFlags let the bench delete every NodeSLO between the floor and
// the manager with one collection delete at 50,000 nodes: the apiserver
// deletes the items one by one within the request's timeout (1 minute by
// default, which 50,000 items exceed), here with 4 workers instead of 1.
// They also turn off the watch cache's consistency check: every 5 to 7.5
// minutes it lists all Nodes and all NodeSLOs from etcd (10 CPU-seconds
// for the NodeSLOs alone at 50,000 nodes), whichever phase, floor's or
// manager's, happens to be running then, and nothing of it is the
// manager's doing.
var apiServerFlags = map[string]string{
	"request-timeout": "10m", "delete-collection-workers": "4",
	"feature-gates": "DetectCacheInconsistency=false",
}

// defaultSweep is what BENCH_SWEEP=1 runs.
const defaultSweep = "1000,2000,5000,10000"

func main() {
	var s settings
	flag.IntVar(&s.nodes, "nodes", envInt("BENCH_NODES", 1000), "Number of Nodes (BENCH_NODES).")
	flag.IntVar(&s.statusUpdates, "status-updates", 500, "Node status-only updates in the status-updates phase.")
	flag.StringVar(&s.regimes, "regimes", os.Getenv("BENCH_REGIMES"),
		"Comma-separated prefixes of the regimes to run, e.g. qps30 or defaults (BENCH_REGIMES; default: all).")
	flag.IntVar(&s.repeat, "repeat", envInt("BENCH_REPEAT", 1),
		"Runs of each regime's phases, floor and manager in turn; the summary takes their medians (BENCH_REPEAT).")
	flag.StringVar(&s.managerBinary, "manager", "bin/manager", "Manager binary to measure.")
	flag.StringVar(&s.managerFlags, "manager-flags", os.Getenv("BENCH_MANAGER_FLAGS"),
		"More flags for the manager, space-separated, after the regime's (BENCH_MANAGER_FLAGS).")
	flag.StringVar(&s.crdDir, "crds", "config/crd/bases", "Directory of the CRD manifests.")
	flag.StringVar(&s.outDir, "out", "bin/bench", "Directory for results.json, the kubeconfig and the manager's logs.")
	flag.StringVar(&s.sweep, "sweep", sweepFromEnv(),
		"Comma-separated node counts to run in turn, then plot scale.png (BENCH_SWEEP=1 means "+defaultSweep+").")
	flag.BoolVar(&s.floorWatches, "floor-watches", os.Getenv("BENCH_FLOOR_WATCHES") != "0",
		"Have the floor watch NodeSLOs as metadata and list the Nodes once in cold, as any controller of "+
			"NodeSLOs must (BENCH_FLOOR_WATCHES=0: the floor only writes).")
	flag.BoolVar(&s.floorStamps, "floor-stamps", os.Getenv("BENCH_FLOOR_STAMPS") == "1",
		"Have the floor write the manager's two annotations (spec-digest, spec-written-at) with each spec "+
			"(BENCH_FLOOR_STAMPS=1).")
	flag.IntVar(&s.cpuProfileSeconds, "cpu-profile-seconds", envInt("BENCH_CPU_PROFILE", 0),
		"Seconds of CPU profile of the manager to take from the start of change-all and restart, into "+
			"cpu-<regime>-<phase>.pprof, and of kube-apiserver under the floor's and the manager's cold and "+
			"change-all and the manager's restart, into apiserver-<regime>-<phase>-{floor,manager}.pprof "+
			"(BENCH_CPU_PROFILE; 0: none).")
	flag.StringVar(&s.kwokBinary, "kwok-binary", envString("KWOK", "bin/kwok"), "kwok binary (KWOK).")
	flag.DurationVar(&s.steady, "steady", envDuration("BENCH_STEADY", 10*time.Minute),
		"Length of the steady phase, run with BENCH_KWOK (BENCH_STEADY).")
	flag.StringVar(&s.koordinatorBinary, "koordinator-binary", "",
		"Koordinator's koord-manager, run as a third side of each regime with only its NodeSLO controller "+
			"(make bench BENCH_KOORDINATOR=1 builds and passes it; empty: not run).")
	flag.StringVar(&s.koordinatorCRDs, "koordinator-crds", "",
		"Directory of Koordinator's CRD manifests, installed beside this project's with -koordinator-binary.")
	kwok := flag.String("kwok", os.Getenv("BENCH_KWOK"),
		"Nodes kept alive by kwok at a pace: 1 or kubelet (kubelet's defaults), fast (a status report every 10 s); "+
			"adds the steady phase (BENCH_KWOK).")
	flag.Parse()
	var err error
	if s.kwok, err = kwokPaceNamed(*kwok); err != nil {
		logf("error: %v", err)
		os.Exit(2)
	}
	// The bench's own informer logs nothing worth reading.
	ctrllog.SetLogger(logr.Discard())
	if s.sweep != "" {
		err = runSweep(s)
	} else {
		_, err = runOnce(s, filepath.Join(s.outDir, "results.json"))
	}
	if err != nil {
		logf("error: %v", err)
		os.Exit(1)
	}
}

// sweepFromEnv reads BENCH_SWEEP: empty or 0 for one run, 1 for the
// default sizes, or a list of node counts.
func sweepFromEnv() string {
	switch v := os.Getenv("BENCH_SWEEP"); v {
	case "", "0":
		return ""
	case "1":
		return defaultSweep
	default:
		return v
	}
}

// runOnce runs the bench once, writes its results to path and prints them;
// wrong counts make it fail after that.
func runOnce(s settings, path string) (*results, error) {
	res, err := run(s)
	if err != nil {
		return nil, err
	}
	if err := res.write(path); err != nil {
		return nil, err
	}
	res.print(os.Stdout)
	logf("results in %s", path)
	if failed := res.failedChecks(); len(failed) > 0 {
		return res, fmt.Errorf("writes or reconciles not as they must be in %s", strings.Join(failed, ", "))
	}
	return res, nil
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

// envString reads a string from the environment, or def.
func envString(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// envDuration reads a duration (e.g. 2m) from the environment, or def.
func envDuration(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil {
		return d
	}
	return def
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[bench %s] "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

// run measures s.nodes nodes on a control plane of its own.
func run(s settings) (*results, error) {
	rs, err := selectRegimes(s.regimes)
	if err != nil {
		return nil, err
	}
	if s.nodes < 1 {
		return nil, fmt.Errorf("BENCH_NODES must be at least 1, not %d", s.nodes)
	}
	if s.repeat < 1 {
		return nil, fmt.Errorf("BENCH_REPEAT must be at least 1, not %d", s.repeat)
	}
	if err := os.MkdirAll(s.outDir, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", s.outDir, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	var extraCRDs []string
	if s.koordinatorBinary != "" {
		if s.koordinatorCRDs == "" {
			return nil, fmt.Errorf("-koordinator-binary needs -koordinator-crds, the directory of Koordinator's CRDs")
		}
		if extraCRDs, err = koordinatorCRDFiles(s.koordinatorCRDs, s.crdDir); err != nil {
			return nil, err
		}
	}
	logf("starting kube-apiserver and etcd")
	cluster, err := localcluster.Start(localcluster.Options{
		AssetsDir: os.Getenv("KUBEBUILDER_ASSETS"), CRDDir: s.crdDir, ExtraCRDs: extraCRDs, EtcdFlags: etcdFlags,
		APIServerFlags: apiServerFlags,
	})
	if err != nil {
		return nil, err
	}
	defer func() {
		logf("stopping the control plane")
		if err := cluster.Stop(); err != nil {
			logf("error: %v", err)
		}
	}()
	controlPlane, err := childrenNamed(os.Getpid(), controlPlaneCommands)
	if err != nil {
		return nil, fmt.Errorf("finding the control plane's processes: %w", err)
	}
	kubeconfig, err := filepath.Abs(filepath.Join(s.outDir, "kubeconfig"))
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(kubeconfig, cluster.AdminKubeconfig, 0o600); err != nil {
		return nil, fmt.Errorf("writing %s: %w", kubeconfig, err)
	}

	// The bench's own client is fast: setting up is not what is measured.
	admin := rest.CopyConfig(cluster.Admin)
	admin.QPS, admin.Burst = 2000, 4000
	c, err := client.New(admin, client.Options{Scheme: scheme.New()})
	if err != nil {
		return nil, fmt.Errorf("creating a client: %w", err)
	}
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: configNamespace}}); err != nil {
		return nil, fmt.Errorf("creating namespace %s: %w", configNamespace, err)
	}
	// The observer stops before the control plane, which otherwise waits
	// for its watch to end.
	obsCtx, stopObserver := context.WithCancel(ctx)
	defer stopObserver()
	obs, err := startObserver(obsCtx, admin)
	if err != nil {
		return nil, err
	}
	b := &bench{settings: s, client: c, admin: admin, kubeconfig: kubeconfig, observer: obs, controlPlane: controlPlane,
		results: results{Nodes: s.nodes, Repeat: s.repeat, FloorWatches: s.floorWatches,
			FloorStamps: s.floorStamps, Koordinator: s.koordinatorBinary != ""}}
	if err := b.prepare(ctx); err != nil {
		return nil, err
	}
	if s.kwok != nil {
		k, err := b.startKwok(ctx, *s.kwok, s.nodes)
		defer k.stop()
		if err != nil {
			return nil, err
		}
		b.results.Kwok = s.kwok.name
	}
	for _, r := range rs {
		for rep := 1; rep <= s.repeat; rep++ {
			if err := b.runRegime(ctx, r, rep); err != nil {
				return nil, fmt.Errorf("regime %s, repetition %d: %w", r.name, rep, err)
			}
		}
	}
	b.results.Summary = summarize(b.results.Phases)
	if b.results.ControlPlaneMemory, err = readControlPlaneMemory(controlPlane); err != nil {
		return nil, fmt.Errorf("reading the control plane's memory: %w", err)
	}
	return &b.results, nil
}
