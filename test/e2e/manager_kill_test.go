//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/api/scheme"
	"github.com/nodeslo/nodeslo-controller/internal/controller"
	"github.com/nodeslo/nodeslo-controller/test/faults"
	"github.com/nodeslo/nodeslo-controller/test/testkit"
)

// killFleetSize is the number of Nodes the SIGKILL spec adds to the cluster.
const killFleetSize = 500

// The manager process is SIGKILLed in the middle of a change to 500 nodes
// and started again, as a Deployment's pod would be after an OOM kill: the
// new process waits for the dead one's lease to expire, then finishes the
// change. See test/faults for what "lost" and "doubled" mean.
var _ = Describe("the manager SIGKILLed in the middle of a change", func() {
	It("converges once started again, nothing lost or doubled", func(ctx SpecContext) {
		admin := rest.CopyConfig(cluster.Admin)
		admin.QPS, admin.Burst = -1, 0 // setting up is not under test
		c, err := client.New(admin, client.Options{Scheme: scheme.New()})
		Expect(err).NotTo(HaveOccurred())
		fleet, err := faults.NewFleet(killFleetSize)
		Expect(err).NotTo(HaveOccurred())
		names := fleet.Names()
		stateIn := func(ctx context.Context) faults.State {
			GinkgoHelper()
			s, err := faults.ReadState(ctx, c)
			Expect(err).NotTo(HaveOccurred())
			return s.Of(names)
		}
		state := func() faults.State { return stateIn(ctx) }
		expected := func(v int) faults.Specs {
			GinkgoHelper()
			specs, err := fleet.Expected(faults.Version(v))
			Expect(err).NotTo(HaveOccurred())
			return specs
		}
		converged := func(want faults.Specs) time.Time {
			GinkgoHelper()
			// Longer than the default: a fleet converges in minutes on a loaded
			// machine; fast polling times it closely.
			Eventually(func() error { return state().NothingLost(want) }).
				WithTimeout(3 * time.Minute).WithPolling(100 * time.Millisecond).Should(Succeed())
			return time.Now()
		}

		restoreConfig := replaceConfig(ctx, c, faults.Version(40))
		DeferCleanup(restoreConfig)
		Expect(fleet.Create(ctx, c, 16)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) {
			Expect(fleet.Delete(ctx, c, 16)).To(Succeed())
			Eventually(func() faults.State { return stateIn(ctx) }).WithTimeout(3 * time.Minute).Should(BeEmpty())
		})

		By("replacing the suite's manager by one with a slower client and plain-HTTP metrics")
		// The slower client (50 writes/s instead of 100, burst 10) makes the
		// change last long enough to be killed in its middle on any machine.
		slow := []string{"--kube-api-qps=50", "--kube-api-burst=10", "--metrics-secure=false"}
		binary := filepath.Join(root, "bin", "manager")
		manager.Stop(15 * time.Second)
		manager = startManager(binary, managerKubeconfig, slow...)
		DeferCleanup(func() {
			By("giving the suite its manager with the deployed flags back")
			manager.Stop(15 * time.Second)
			manager = startManager(binary, managerKubeconfig)
			manager.waitUntilLeading(kube)
		})
		manager.waitUntilLeading(kube)
		from, to := expected(40), expected(41)
		converged(from)
		before := state()
		changes := faults.ChangesBetween(from, to)

		setConfig(ctx, c, faults.Version(41))
		changed := time.Now()
		Eventually(func() int { return state().Matching(to) }).WithTimeout(3 * time.Minute).
			WithPolling(100 * time.Millisecond).Should(BeNumerically(">=", killFleetSize/5))
		holder := leaseHolder(Default, c)
		By("SIGKILLing the manager")
		manager.Kill()
		killed := time.Now()
		atKill, err := faults.ReadState(ctx, c) // every NodeSLO: the sample nodes' change too
		Expect(err).NotTo(HaveOccurred())
		done := atKill.Of(names).Matching(to)
		Expect(done).To(BeNumerically("<", killFleetSize), "killed in the middle of the change")

		By("starting it again")
		manager = startManager(binary, managerKubeconfig, slow...)
		started := time.Now()
		// Longer than the default: the killed manager's Lease has to expire first.
		Eventually(func(g Gomega) string { return leaseHolder(g, c) }).WithTimeout(2 * time.Minute).
			WithPolling(100 * time.Millisecond).ShouldNot(Or(Equal(holder), BeEmpty()))
		leading := time.Now()
		end := converged(to)
		updates := waitProcessIdle(manager)

		after := state()
		Expect(after.NothingLost(to)).To(Succeed())
		tally, err := faults.NoWriteDoubled(before, after, changes, nil, nil, true)
		Expect(err).NotTo(HaveOccurred())
		all, err := faults.ReadState(ctx, c)
		Expect(err).NotTo(HaveOccurred())
		stored, storedFleet := 0, 0
		for name, s := range all {
			stored += int(s.Generation - atKill[name].Generation)
		}
		for name, s := range all.Of(names) {
			storedFleet += int(s.Generation - atKill[name].Generation)
		}
		Expect(updates).To(BeNumerically("<=", stored), "every write of the new process changed a spec")
		text := fmt.Sprintf("%d nodes: converged %s after the SIGKILL (%s after the new process took the lease, "+
			"which it waited %s for; %s from the change); %d nodes were done when killed, the new process "+
			"wrote the other %d (%d writes in all, other nodes' included); %s", killFleetSize,
			seconds(end.Sub(killed)), seconds(end.Sub(leading)), seconds(leading.Sub(started)),
			seconds(end.Sub(changed)), done, storedFleet, updates, tally)
		GinkgoWriter.Printf("FIGURE manager SIGKILL: %s\n", text)
		AddReportEntry("manager SIGKILL", text)
	})
})

// replaceConfig sets the ConfigMap's data and returns a function that puts
// back what was there (or deletes it if there was none, annotated for it
// first: dist/install.yaml's deletion policy denies it otherwise).
func replaceConfig(ctx context.Context, c client.Client, data map[string]string) func(context.Context) {
	GinkgoHelper()
	key := client.ObjectKey{Namespace: namespace, Name: configMapName}
	cm := &corev1.ConfigMap{}
	err := c.Get(ctx, key, cm)
	if apierrors.IsNotFound(err) {
		setConfig(ctx, c, data)
		return func(ctx context.Context) { testkit.DeleteConfig(ctx, c, key) }
	}
	Expect(err).NotTo(HaveOccurred())
	old := cm.Data
	setConfig(ctx, c, data)
	return func(ctx context.Context) { setConfig(ctx, c, old) }
}

// setConfig creates or replaces the ConfigMap's data.
func setConfig(ctx context.Context, c client.Client, data map[string]string) {
	GinkgoHelper()
	testkit.SetConfig(ctx, c, client.ObjectKey{Namespace: namespace, Name: configMapName}, data)
}

// waitProcessIdle waits until the manager process holds no work (no
// reconcile running, none begun between two scrapes of its /metrics,
// testkit.Activity.SettledSince, twice in a row) and returns its
// successful NodeSLO writes, final then for the converged state the spec
// waited for.
func waitProcessIdle(p *managerProcess) int {
	GinkgoHelper()
	var writes float64
	Eventually(testkit.Settled(func() (testkit.Activity, error) {
		a, w, err := p.activity()
		writes = w
		return a, err
	})).WithTimeout(time.Minute).WithPolling(100 * time.Millisecond).MustPassRepeatedly(2).Should(Succeed())
	return int(writes)
}

// activity scrapes the manager's plain-HTTP metrics for its controllers'
// activity and its successful NodeSLO writes.
func (p *managerProcess) activity() (a testkit.Activity, writes float64, err error) {
	resp, err := http.Get("http://" + p.metricsAddr + "/metrics") //nolint:noctx // polled by Eventually
	if err != nil {
		return testkit.Activity{}, 0, err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return testkit.Activity{}, 0, err
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		return testkit.Activity{}, 0, err
	}
	for _, m := range families["nodeslo_reconcile_total"].GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if labels["result"] == "success" && (labels["operation"] == "create" || labels["operation"] == "update" ||
			labels["operation"] == "delete") {
			writes += m.GetCounter().GetValue()
		}
	}
	return testkit.ActivityOf(slices.Collect(maps.Values(families)), controller.Controllers), writes, nil
}

// seconds formats a duration as seconds with two decimals.
func seconds(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }
