package controller_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/api/scheme"
	"github.com/nodeslo/nodeslo-controller/internal/controller"
	"github.com/nodeslo/nodeslo-controller/internal/manager/managertest"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
	"github.com/nodeslo/nodeslo-controller/test/localcluster"
	"github.com/nodeslo/nodeslo-controller/test/testkit"
)

// The suite runs the manager that cmd/ runs (manager.New) against envtest's
// kube-apiserver and etcd, as a ServiceAccount bound only to the RBAC
// manifests in config/rbac, with leader election on.
const (
	configNamespace = sloconfig.DefaultConfigMapNamespace
	configName      = sloconfig.DefaultConfigMapName
)

var (
	// k8sClient is the admin's: it sets up fixtures and observes; watcher
	// is the same admin's, for the specs that follow every version of an
	// object (a poll could miss one).
	k8sClient client.Client
	watcher   client.WithWatch
	// managerConfig impersonates the ServiceAccount and counts NodeSLO writes.
	managerConfig *rest.Config
	writes        = &localcluster.WriteLog{}
	reads         = &readLog{}
	// readFault fails the manager's reads a spec names (plan_failure_test.go).
	readFault   = &readFaults{}
	stopManager func()
	// clock is the controllers' clock: specs move it past a soak or a step
	// interval instead of waiting (docs/testing.md, "The controllers' clock").
	clock = &testkit.Clock{}
	// kubeconfig is the administrator's, for the kubectl the specs run.
	kubeconfig string
	// metricCredentials is the manager's --metric-gate-credentials-dir;
	// specs add entries to it (metric_gate_security_test.go).
	metricCredentials string
	// tenant is tenantUser's client (pod_namespaces_test.go).
	tenant client.Client
	// configEditor is configEditorUser's client (config_editor_test.go).
	configEditor client.Client
)

// metricAllowedHosts is the manager's --metric-gate-allowed-hosts: the
// loopback address every listener of the specs binds.
const metricAllowedHosts = "127.0.0.1,localhost"

// metricGateAllowedHosts is what startManager gives
// --metric-gate-allowed-hosts: metricAllowedHosts, but "" while a spec
// runs the manager without it.
var metricGateAllowedHosts = metricAllowedHosts

func TestControllers(t *testing.T) {
	envtestharness.RunSuite(t, "Controller suite")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	envtestharness.LogToGinkgo()
	env := envtestharness.Start(envtestharness.Options{})
	kubeconfig = filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	Expect(os.WriteFile(kubeconfig, env.AdminKubeconfig, 0o600)).To(Succeed())
	// Unthrottled: client-go's default of 5 requests a second, not the
	// apiserver, paced the fixtures (40 Nodes a rollout spec, and more).
	k8sClient = env.UnthrottledClient()
	var err error
	watcher, err = client.NewWithWatch(env.UnthrottledAdmin(), client.Options{Scheme: scheme.New()})
	Expect(err).NotTo(HaveOccurred())
	managerConfig = env.ManagerServiceAccount(ctx, envtestharness.ManagerRBAC, envtestharness.LeaderElectionRBAC)
	grantPodNamespaces(ctx)
	tenant = clientAs(env.UnthrottledAdmin(), tenantUser)
	grantConfigEditor(ctx)
	configEditor = clientAs(env.UnthrottledAdmin(), configEditorUser)
	managerConfig.Wrap(writes.Wrap)
	managerConfig.Wrap(reads.wrap)
	managerConfig.Wrap(readFault.wrap)

	dir, err := os.MkdirTemp("", "metric-gate-credentials-")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(os.RemoveAll, dir)
	metricCredentials = dir

	stopManager = startManager()
})

var _ = AfterSuite(func() {
	if stopManager != nil {
		stopManager()
	}
})

// startManager builds the manager as cmd/ does, starts it and returns a
// function that stops it and waits until it released its Lease.
func startManager() func() {
	opts := managertest.Options()
	opts.LeaderElection = true
	opts.Controllers.Clock = clock
	opts.Controllers.BeforeNodeSLOReconcile = heldReconciles.wait
	opts.Controllers.MetricGate.CredentialsDir = metricCredentials
	opts.Controllers.MetricGate.AllowedHosts = metricGateAllowedHosts
	opts.Controllers.HealthGatePodNamespaces = podNamespace
	opts.LeaderElectionNamespace = envtestharness.SystemNamespace
	running, err := managertest.Start(managerConfig, opts)
	Expect(err).NotTo(HaveOccurred())
	return func() {
		Expect(running.Stop()).To(Succeed())
	}
}

// readLog records the manager's reads of Nodes, ConfigMaps, NodeSLOs, Pods
// and Events, to show what its cache and its health gate ask the apiserver for.
type readLog struct {
	mu       sync.Mutex
	requests []readRequest
}

type readRequest struct {
	Path, Query, Accept, UserAgent string
	// WritesBefore is, for a read of one NodeSLO, how many times the
	// manager had written it when the read was sent (writes).
	WritesBefore int
}

func (l *readLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return localcluster.RoundTripperFunc(func(req *http.Request) (*http.Response, error) {
		if req.Method == http.MethodGet && readKind(req.URL.Path) != "" {
			r := readRequest{Path: req.URL.Path, Query: req.URL.RawQuery, Accept: req.Header.Get("Accept"),
				UserAgent: req.UserAgent()}
			if name, ok := strings.CutPrefix(req.URL.Path, controller.NodeSLOsPath+"/"); ok {
				r.WritesBefore = writes.Succeeded(name)
			}
			l.mu.Lock()
			l.requests = append(l.requests, r)
			l.mu.Unlock()
		}
		return rt.RoundTrip(req)
	})
}

// readKind is the kind readLog records a read of path as ("": none).
func readKind(path string) string {
	switch {
	case strings.HasPrefix(path, "/api/v1/nodes"):
		return "nodes"
	case strings.Contains(path, "/configmaps"):
		return "configmaps"
	case strings.HasPrefix(path, controller.NodeSLOsPath):
		return "nodeslos"
	case strings.HasPrefix(path, "/api/v1/") && strings.Contains(path, "/pods"):
		return podsResource
	case strings.Contains(path, "/events"):
		return "events"
	}
	return ""
}

// Of returns the recorded reads of kind "nodes", "configmaps", "nodeslos",
// "pods" or "events".
func (l *readLog) Of(kind string) []readRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []readRequest
	for _, r := range l.requests {
		if readKind(r.Path) == kind {
			out = append(out, r)
		}
	}
	return out
}
