package faults_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/go-logr/logr"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/transport"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/nodeslo/nodeslo-controller/api/scheme"
	"github.com/nodeslo/nodeslo-controller/internal/controller"
	"github.com/nodeslo/nodeslo-controller/internal/manager"
	"github.com/nodeslo/nodeslo-controller/internal/manager/managertest"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
	"github.com/nodeslo/nodeslo-controller/test/faultproxy"
	"github.com/nodeslo/nodeslo-controller/test/faults"
	"github.com/nodeslo/nodeslo-controller/test/localcluster"
	"github.com/nodeslo/nodeslo-controller/test/testkit"
)

// The suite runs the manager that cmd/ runs (manager.New), in-process, as
// a ServiceAccount bound to config/rbac, against envtest's kube-apiserver
// and etcd with fleetSize realistic Nodes. Set FAULTS_LOG=1 to see the
// manager's log (thousands of lines).
const (
	fleetSize       = 500
	configNamespace = sloconfig.DefaultConfigMapNamespace
	configName      = sloconfig.DefaultConfigMapName
	// converge bounds every wait for the NodeSLOs instead of the harness's
	// default: 500 of them converge in minutes on a loaded machine. The
	// figures are printed, never asserted.
	converge = 3 * time.Minute
	// poll is slower than the default: each look lists 500 NodeSLOs, and
	// the suite measures the manager, not its own load on the apiserver.
	poll = 100 * time.Millisecond
)

var (
	cluster *envtestharness.Environment
	// k8sClient is the admin's: it sets up, observes and plays the other writer.
	k8sClient client.Client
	// managerConfig is the ServiceAccount's, for the manager.
	managerConfig *rest.Config
	fleet         *faults.Fleet
	// proxy is a fault-injecting proxy in front of the apiserver, and
	// proxiedManager the ServiceAccount's config through it (a token: the
	// proxy ends TLS, so a client certificate cannot pass).
	proxy          *faultproxy.Proxy
	proxiedManager *rest.Config
	// auditLog is kube-apiserver's record of the NodeSLO and NodeSLORollout
	// writes it carried out, by user: the manager's counted on the server,
	// a write whose answer the proxy reset included.
	auditLog *faultproxy.AuditLog
)

func TestFaults(t *testing.T) {
	envtestharness.RunSuite(t, "Fault suite")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	if os.Getenv("FAULTS_LOG") != "" {
		envtestharness.LogToGinkgo()
	} else {
		logf.SetLogger(logr.Discard())
	}
	// FAULTS_LOG=2 adds kube-apiserver's and etcd's logs.
	auditDir, err := os.MkdirTemp("", "nodeslo-faults-audit-")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(os.RemoveAll, auditDir)
	auditLog, err = faultproxy.NewAuditLog(auditDir, faultproxy.ProjectResources...)
	Expect(err).NotTo(HaveOccurred())
	flags := auditLog.APIServerFlags()
	// Node watches are served from etcd, not the apiserver's watch cache
	// (which keeps a window of its own): a watch resumed from before an
	// etcd compaction is then told 410 Gone, as the relist scenario needs.
	flags["watch-cache-sizes"] = "nodes#0"
	cluster = envtestharness.Start(envtestharness.Options{
		AttachOutput: os.Getenv("FAULTS_LOG") == "2", APIServerFlags: flags,
	})
	// The admin is not rate-limited: setting up 500 nodes is not under test.
	admin := rest.CopyConfig(cluster.Admin)
	admin.QPS, admin.Burst = -1, 0
	k8sClient, err = client.New(admin, client.Options{Scheme: scheme.New()})
	Expect(err).NotTo(HaveOccurred())
	// Leader election's Lease too, as deployed: the clock scenario runs two replicas.
	managerConfig = cluster.ManagerServiceAccount(ctx, envtestharness.ManagerRBAC, envtestharness.LeaderElectionRBAC)

	proxy, err = faultproxy.Start(context.Background(), cluster.Admin, faultproxy.WithLog(GinkgoWriter))
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(proxy.Close)
	token, err := faultproxy.ServiceAccountToken(ctx, cluster.Admin, envtestharness.SystemNamespace,
		envtestharness.ServiceAccountName)
	Expect(err).NotTo(HaveOccurred())
	proxiedManager = proxy.Config(token)

	fleet, err = faults.NewFleet(fleetSize)
	Expect(err).NotTo(HaveOccurred())
	start := time.Now()
	Expect(fleet.Create(ctx, k8sClient, 16)).To(Succeed())
	GinkgoWriter.Printf("created %d nodes in %s\n", fleetSize, time.Since(start).Round(time.Millisecond))
}, NodeTimeout(5*time.Minute))

// startManager starts a manager with the deployed defaults (but leader
// election: a manager that loses its lease exits by design, which is the
// subject of the process tests in test/e2e), changed by tune. It returns
// the log of its NodeSLO writes; the manager stops when the test ends.
func startManager(tune func(*manager.Options), wraps ...transport.WrapperFunc) *localcluster.WriteLog {
	GinkgoHelper()
	return startManagerOn(managerConfig, tune, wraps...)
}

// startManagerOn is startManager with the manager's requests sent with
// base: managerConfig, or proxiedManager for the faults of the proxy.
func startManagerOn(
	base *rest.Config, tune func(*manager.Options), wraps ...transport.WrapperFunc,
) *localcluster.WriteLog {
	GinkgoHelper()
	writes := &localcluster.WriteLog{}
	cfg := rest.CopyConfig(base)
	cfg.Wrap(writes.Wrap)
	for _, wrap := range wraps {
		cfg.Wrap(wrap)
	}
	opts := managertest.Options()
	if tune != nil {
		tune(&opts)
	}
	running, err := managertest.Start(cfg, opts)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(running.Stop()).To(Succeed()) })
	return writes
}

// setConfig creates or replaces the ConfigMap's data.
func setConfig(ctx context.Context, data map[string]string) {
	GinkgoHelper()
	testkit.SetConfig(ctx, k8sClient, client.ObjectKey{Namespace: configNamespace, Name: configName}, data)
}

// expected returns the specs the fleet must carry under data.
func expected(data map[string]string) faults.Specs {
	GinkgoHelper()
	specs, err := fleet.Expected(data)
	Expect(err).NotTo(HaveOccurred())
	return specs
}

// readState lists the NodeSLOs from the apiserver.
func readState(ctx context.Context) faults.State {
	GinkgoHelper()
	s, err := faults.ReadState(ctx, k8sClient)
	Expect(err).NotTo(HaveOccurred())
	return s
}

// waitConverged waits until the NodeSLOs are exactly the wanted ones and
// returns them with the time it saw them so.
func waitConverged(ctx context.Context, want faults.Specs) (faults.State, time.Time) {
	GinkgoHelper()
	var s faults.State
	Eventually(func() error {
		var err error
		if s, err = faults.ReadState(ctx, k8sClient); err != nil {
			return err
		}
		return s.NothingLost(want)
	}).WithContext(ctx).WithTimeout(converge).WithPolling(poll).Should(Succeed())
	return s, time.Now()
}

// convergedAndQuiet waits until the NodeSLOs are the wanted ones and the
// manager holds no request (testkit.Settle: every write the converged
// state needed has been sent, so the write counts are final), checks they
// still are, so that a late write would show, and returns them with the
// time they were first seen so.
func convergedAndQuiet(ctx context.Context, want faults.Specs) (faults.State, time.Time) {
	GinkgoHelper()
	_, converged := waitConverged(ctx, want)
	testkit.Settle(controller.Controllers...)
	s := readState(ctx)
	Expect(s.NothingLost(want)).To(Succeed(), "after the manager stopped writing")
	return s, converged
}

// settle puts the ConfigMap at data and waits until every node carries it:
// the state a test starts its fault from.
func settle(ctx context.Context, data map[string]string) faults.State {
	GinkgoHelper()
	setConfig(ctx, data)
	s, _ := waitConverged(ctx, expected(data))
	return s
}

// figure prints a test's figure in the -v output and in the report.
func figure(name, format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	GinkgoWriter.Printf("FIGURE %s: %s\n", name, text)
	AddReportEntry(name, text)
}

// seconds formats a duration as seconds with two decimals.
func seconds(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

// managerNodeSLOWrites counts the NodeSLO writes (creates, updates,
// patches, deletes) kube-apiserver carried out for the manager's
// ServiceAccount since the suite began: a scenario takes the difference.
func managerNodeSLOWrites() int {
	GinkgoHelper()
	user := serviceaccount.MakeUsername(envtestharness.SystemNamespace, envtestharness.ServiceAccountName)
	n, err := auditLog.SuccessfulWrites(user, "nodeslos")
	Expect(err).NotTo(HaveOccurred())
	return n
}

// expectAuditedWrites checks that kube-apiserver carried out exactly want
// NodeSLO writes for the manager since it counted from (its audit log's
// line of a write may land just after the client has its answer).
func expectAuditedWrites(from, want int) {
	GinkgoHelper()
	Eventually(func() int { return managerNodeSLOWrites() - from }).WithTimeout(5*time.Second).
		Should(Equal(want), "NodeSLO writes the apiserver carried out for the manager")
	Consistently(func() int { return managerNodeSLOWrites() - from }).WithTimeout(time.Second).
		Should(Equal(want), "NodeSLO writes the apiserver carried out for the manager")
}
