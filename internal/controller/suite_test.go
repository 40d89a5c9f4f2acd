package controller_test

import (
	"context"
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
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/nodeslo/nodeslo-controller/api/scheme"
	"github.com/nodeslo/nodeslo-controller/internal/manager/managertest"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/test/localcluster"
)

// The suite runs the manager that cmd/ runs (manager.New) against envtest's
// kube-apiserver and etcd, as a ServiceAccount bound only to the RBAC
// manifests in config/rbac, with leader election on.
const (
	configNamespace = sloconfig.DefaultConfigMapNamespace
	configName      = sloconfig.DefaultConfigMapName
	// systemNamespace is the namespace the un-kustomized manifests in
	// config/rbac name ("system"); the manager's Lease lives there too.
	systemNamespace = "system"
	serviceAccount  = "controller-manager"
)

var (
	testEnv *envtest.Environment
	// k8sClient is the admin's: it sets up fixtures and observes.
	k8sClient client.Client
	// managerConfig impersonates the ServiceAccount and counts NodeSLO writes.
	managerConfig *rest.Config
	writes        = &localcluster.WriteLog{}
	reads         = &readLog{}
	stopManager   func()
)

func TestControllers(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Controller suite")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		Fail("KUBEBUILDER_ASSETS is not set: run `make test`, or point it at a directory with kube-apiserver and etcd")
	}

	testEnv = &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("..", "..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
	}
	adminConfig, err := testEnv.Start()
	Expect(err).NotTo(HaveOccurred())
	k8sClient, err = client.New(adminConfig, client.Options{Scheme: scheme.New()})
	Expect(err).NotTo(HaveOccurred())

	managerConfig, err = localcluster.ServiceAccount{
		Namespace: systemNamespace, Name: serviceAccount, ExtraNamespaces: []string{configNamespace},
		RBACDir: filepath.Join("..", "..", "config", "rbac"),
		Files: []string{
			"role.yaml", "role_binding.yaml", "config_role_binding.yaml",
			"leader_election_role.yaml", "leader_election_role_binding.yaml",
		},
	}.Create(context.Background(), k8sClient, adminConfig)
	Expect(err).NotTo(HaveOccurred())
	managerConfig.Wrap(writes.Wrap)
	managerConfig.Wrap(reads.wrap)

	stopManager = startManager()
})

var _ = AfterSuite(func() {
	if stopManager != nil {
		stopManager()
	}
	if testEnv != nil {
		Expect(testEnv.Stop()).To(Succeed())
	}
})

// startManager builds the manager as cmd/ does, starts it and returns a
// function that stops it and waits until it released its Lease.
func startManager() func() {
	opts := managertest.Options()
	opts.LeaderElection = true
	opts.LeaderElectionNamespace = systemNamespace
	running, err := managertest.Start(managerConfig, opts)
	Expect(err).NotTo(HaveOccurred())
	return func() {
		Expect(running.Stop()).To(Succeed())
	}
}

// readLog records the manager's reads of Nodes and ConfigMaps, to show what
// its cache asks the apiserver for.
type readLog struct {
	mu       sync.Mutex
	requests []readRequest
}

type readRequest struct {
	Path, Query, Accept string
}

func (l *readLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		if req.Method == http.MethodGet &&
			(strings.HasPrefix(req.URL.Path, "/api/v1/nodes") || strings.Contains(req.URL.Path, "/configmaps")) {
			l.mu.Lock()
			l.requests = append(l.requests, readRequest{req.URL.Path, req.URL.RawQuery, req.Header.Get("Accept")})
			l.mu.Unlock()
		}
		return rt.RoundTrip(req)
	})
}

// Of returns the recorded reads of kind "nodes" or "configmaps".
func (l *readLog) Of(kind string) []readRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []readRequest
	for _, r := range l.requests {
		if (kind == "nodes" && strings.HasPrefix(r.Path, "/api/v1/nodes")) ||
			(kind == "configmaps" && strings.Contains(r.Path, "/configmaps")) {
			out = append(out, r)
		}
	}
	return out
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
