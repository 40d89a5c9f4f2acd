//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/test/testkit"
)

// The staged rollout etcd stalls in: 5 canaries soaked 5 s, then batches of
// 17 % of the pending nodes 15 s apart, over the 500 leader-test nodes (and
// whatever other nodes the suite has, which the change reaches too). Six
// batches: a killed leader's Lease is taken over 15 to 17 s later, so every
// third kill tick finds a leader, which takes one step before it dies; the
// leader after the last kill has the last batch left to take.
const (
	stallCanaries    = 5
	stallStepPercent = "17%"
	stallSoak        = 5 * time.Second
	stallInterval    = 15 * time.Second
	stallCanaryLabel = "e2e.nodeslo.koordinator.sh/canary"
	// etcdStall is how long etcd is SIGSTOPped; then the leader is
	// SIGKILLed leaderKills times, a kill due every killEvery.
	etcdStall   = 20 * time.Second
	killEvery   = 7 * time.Second
	leaderKills = 5
	// lookTimeout bounds one look: during the stall a read may wait on etcd.
	lookTimeout = 3 * time.Second
)

// etcd stalls for 20 s in the middle of a step of a staged rollout, then the
// leader is SIGKILLed every 7 s, five times, each replica started again by a
// supervisor (issue 58; docs/behaviour.md#faults, "etcd stalled").
// The rollout's rules are checked at every look while the faults are on,
// not only at the end.
var _ = Describe("etcd stalled mid-step, then the leader killed again and again", func() {
	It("keeps the record's steps, hands the Lease over cleanly, writes each pending node once and converges",
		func(ctx SpecContext) {
			specStart := time.Now()
			admin, err := client.New(cluster.UnthrottledAdmin(), client.Options{Scheme: cluster.Client.Scheme()})
			Expect(err).NotTo(HaveOccurred())

			By("500 Nodes at cpuBurstPercent 200, five of them canaries")
			withLeaderTestNodes(admin)
			canaries := make([]string, 0, stallCanaries)
			for i := range stallCanaries {
				canaries = append(canaries, fmt.Sprintf("leader-test-%03d", i))
			}
			kube.mustRun(append(append([]string{"label", "node"}, canaries...), stallCanaryLabel+"=true")...)

			By("two replicas under a supervisor instead of the suite's manager, with a slower client")
			// The slower client (50 writes/s, as manager_kill_test's) makes a
			// step of 85 nodes last two seconds, long enough to stall
			// etcd in its middle on any machine; the Lease timings stay the
			// deployed ones.
			binary := filepath.Join(root, "bin", "manager")
			scraper := newMetricsScraper("etcd-stall-scraper")
			manager.Stop(15 * time.Second)
			replicas := supervise(2, func() *managerProcess {
				return startManager(binary, managerKubeconfig, "--kube-api-qps=50", "--kube-api-burst=10")
			})
			DeferCleanup(func() {
				By("giving the suite its manager back")
				replicas.stop()
				manager = startManager(binary, managerKubeconfig)
				manager.waitUntilLeading(kube)
			})
			Eventually(func() *managerProcess { return leaderOf(replicas, scraper) }).
				WithTimeout(takeover).Should(Not(BeNil()))

			By("the strategy, then the change it rolls out")
			withStallStrategy(ctx, admin)
			before := map[string]int64{}
			for _, slo := range listSLOs(ctx, Default, admin) {
				before[slo.Name] = slo.Generation
			}
			look := &stagedLook{before: before, canaries: canaries, soak: stallSoak, interval: stallInterval}
			leases := &leaseChanges{}
			// A first look before the change: the look that first sees a
			// step then has one before it, which bounds when the step began
			// (the canaries and the first batch may both be written by then).
			lookStart := time.Now()
			slos, status, lease, err := readLook(ctx, admin, false)
			Expect(err).NotTo(HaveOccurred())
			Expect(look.check(lookStart, slos, status)).To(BeEmpty())
			Expect(leases.observe(lease)).To(BeEmpty())
			setCPUBurstPercent(leaderTestPercent)
			cm := &corev1.ConfigMap{}
			Expect(admin.Get(ctx, client.ObjectKey{Namespace: namespace, Name: configMapName}, cm)).To(Succeed())
			look.target = sloconfig.Load(cm.Data, nil).Fingerprint()
			changed := time.Now()

			// One loop drives the faults and looks at the cluster between
			// them: a look every 100 ms (from kube-apiserver's watch cache
			// while etcd is stopped, as nothing else answers then), the stall
			// once a batch is under way, a kill due every 7 s after it.
			var (
				stalled, resumed, lastKill, convergedAt, convergeBy time.Time
				stallEnds, killDue, settled                         <-chan time.Time
				kills                                               []string
				killTicks, unanswered, stallLooks                   int
				stallProven                                         bool
				reachedAtStall, batchAtStall, changesAtLastKill     int
				changesAtResume                                     int
				takenOver                                           time.Time
			)
			looks := time.NewTicker(100 * time.Millisecond)
			defer looks.Stop()
			giveUp := time.After(4 * time.Minute)
			for done := false; !done; {
				select {
				case <-giveUp:
					Fail(fmt.Sprintf("the scenario did not end in 4 minutes: %d kills, converged %v, status %+v",
						len(kills), !convergedAt.IsZero(), look.status))
				case <-looks.C:
					inStall := !stalled.IsZero() && resumed.IsZero()
					lookStart := time.Now()
					slos, status, lease, err := readLook(ctx, admin, inStall)
					if err != nil {
						unanswered++
						continue
					}
					if inStall {
						stallLooks++
					}
					if violation := look.check(lookStart, slos, status); violation != "" {
						Fail(violation)
					}
					if violation := leases.observe(lease); violation != "" {
						Fail(violation)
					}
					if !resumed.IsZero() && takenOver.IsZero() && leases.changes > changesAtResume {
						takenOver = time.Now()
					}
					switch {
					case stalled.IsZero() && look.midBatch():
						reachedAtStall, batchAtStall = look.reached, len(look.begun)-1
						By(fmt.Sprintf("SIGSTOPping etcd for %s, %d nodes reached, batch %d under way",
							etcdStall, reachedAtStall, batchAtStall))
						DeferCleanup(func() { Expect(cluster.ResumeEtcd()).To(Succeed()) })
						Expect(cluster.PauseEtcd()).To(Succeed())
						stalled = time.Now()
						stallEnds = time.After(etcdStall)
						stallProven = !consistentReadAnswers(ctx, admin)
					case convergedAt.IsZero() && look.converged():
						convergedAt = time.Now()
					case len(kills) == leaderKills && !convergedAt.IsZero() && settled == nil &&
						leases.changes > changesAtLastKill:
						// The replica that took the Lease over after the last
						// kill leads a completed rollout: a few more looks,
						// as nothing may land any more (neither its writes
						// nor one a dead replica had in flight).
						settled = time.After(5 * time.Second)
					}
				case <-stallEnds:
					resumed, changesAtResume = time.Now(), leases.changes
					Expect(cluster.ResumeEtcd()).To(Succeed())
					By("etcd resumed; SIGKILLing the leader every 7 s, five times")
					ticker := time.NewTicker(killEvery)
					DeferCleanup(ticker.Stop)
					killDue = ticker.C
				case <-killDue:
					killTicks++
					leader := leaderOf(replicas, scraper)
					if leader == nil {
						// The Lease still names a killed replica: the next one
						// takes it over once it expired (15 s as deployed).
						continue
					}
					leader.Kill()
					kills = append(kills, fmt.Sprintf("%s (%d nodes reached)", seconds(time.Since(resumed)),
						look.reached))
					if len(kills) == leaderKills {
						lastKill, killDue, changesAtLastKill = time.Now(), nil, leases.changes
						// Twice the stall after the last kill, plus what the
						// schedule has left then: each step not yet begun
						// still waits its soak or interval (15 s each here,
						// which the takeover's 15 s overlaps), and must not
						// be taken early to meet a bound.
						left := time.Duration(0)
						for k := len(look.begun); k < max(int(look.status.Steps), 1); k++ {
							left += look.wait(k)
						}
						convergeBy = lastKill.Add(left + 2*etcdStall)
					}
				case <-settled:
					done = true
				}
				if !convergeBy.IsZero() && convergedAt.IsZero() && time.Now().After(convergeBy) {
					Fail(fmt.Sprintf("not converged %s after the last kill (%s after it allowed): %d of %d "+
						"nodes reached, status %+v", seconds(time.Since(lastKill)), seconds(convergeBy.Sub(lastKill)),
						look.reached, look.status.PendingAtStart, look.status))
				}
			}

			Expect(convergedAt).To(BeTemporally("<=", convergeBy), "converged in time")

			By("the fault was real: etcd answered no consistent read while stopped")
			Expect(stallProven).To(BeTrue(), "a consistent read answered while etcd was SIGSTOPped")
			Expect(reachedAtStall).To(BeNumerically("<", look.reached), "the stall came before the rollout's end")

			By("each pending node written exactly once, and every holder of the Lease seen")
			writes := 0
			for _, slo := range listSLOs(ctx, Default, admin) {
				writes += int(slo.Generation - before[slo.Name])
			}
			Expect(writes).To(Equal(int(look.status.PendingAtStart)), "NodeSLO writes, one per pending node")
			Expect(look.reached).To(Equal(writes))
			Expect(leases.unseen()).To(BeZero(), "holders of the Lease no look saw")
			Expect(leases.changes).To(BeNumerically(">=", leaderKills), "a new holder after each kill")

			// The first holder after the stall: a replica takes the Lease
			// over a lease duration after it last saw it change, which is
			// before etcd stopped or, if it had not yet read the last
			// renewal then, after etcd resumed. Its acquireTime is when it
			// began the attempt whose read waited on etcd.
			Expect(leases.changes).To(BeNumerically(">", changesAtResume))
			renewal, acquired := leases.renewed[changesAtResume], leases.acquired[changesAtResume]
			late, largest := look.lateness()
			figure := fmt.Sprintf("etcd SIGSTOPped %s with %d of %d nodes reached (batch %d under way), "+
				"%d looks answered from the watch cache meanwhile; the Lease, last renewed %s after etcd stopped, "+
				"seen taken over %s after it resumed (acquireTime %s); then the leader SIGKILLed %d times at %v after "+
				"etcd resumed (%d kill ticks of %s; lease settings as deployed: %s), %d restarts by the supervisor; "+
				"%d Lease holder changes, each clean; %d NodeSLO writes for %d pending nodes; converged %s "+
				"after the last kill (negative: before it; %s allowed), %s after the change; stages begun %v "+
				"after the change, later than their schedule by %v (largest %s); %d looks unanswered; spec %s",
				etcdStall, reachedAtStall, look.status.PendingAtStart, batchAtStall, stallLooks,
				seconds(renewal.Sub(stalled)), seconds(takenOver.Sub(resumed)), seconds(acquired.Sub(resumed)), len(kills),
				kills, killTicks, killEvery, deployedLeaseArgsText(), replicas.restarted(), leases.changes, writes,
				look.status.PendingAtStart, seconds(convergedAt.Sub(lastKill)), seconds(convergeBy.Sub(lastKill)),
				seconds(convergedAt.Sub(changed)), since(changed, look.begun), late, seconds(largest), unanswered,
				seconds(time.Since(specStart)))
			GinkgoWriter.Printf("FIGURE etcd stall and leader kills: %s\n", figure)
			AddReportEntry("etcd stall and leader kills", figure)
		})
})

// withStallStrategy gives the NodeSLORollout the spec's strategy, waits
// until the leader decided on it, and deletes it when the spec ends: the
// suite's other specs change every node at once.
func withStallStrategy(ctx context.Context, c client.Client) {
	GinkgoHelper()
	policy, err := json.Marshal(testkit.Policy{RolloutStrategy: nodeslov1alpha1.RolloutStrategy{
		MaxNodesPerStep:     new(intstr.FromString(stallStepPercent)),
		StepIntervalSeconds: ptr.To(int32(stallInterval / time.Second)),
		Canary: &nodeslov1alpha1.CanaryStrategy{
			NodeSelector: metav1.LabelSelector{MatchLabels: map[string]string{stallCanaryLabel: "true"}},
			SoakSeconds:  ptr.To(int32(stallSoak / time.Second)),
		},
	}})
	Expect(err).NotTo(HaveOccurred())
	key := client.ObjectKey{Namespace: namespace, Name: configMapName}
	testkit.SetStrategy(ctx, c, key, string(policy))
	DeferCleanup(func(ctx SpecContext) {
		Expect(client.IgnoreNotFound(c.Delete(ctx, &nodeslov1alpha1.NodeSLORollout{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: configMapName}}))).To(Succeed())
	})
	obj := &nodeslov1alpha1.NodeSLORollout{}
	Expect(c.Get(ctx, key, obj)).To(Succeed())
	Eventually(func(g Gomega) {
		g.Expect(c.Get(ctx, key, obj)).To(Succeed())
		g.Expect(obj.Status.ObservedGeneration).To(Equal(obj.Generation))
		g.Expect(obj.Status.Phase).NotTo(BeEmpty())
	}).Should(Succeed())
}

// listSLOs lists every NodeSLO with a consistent read.
func listSLOs(ctx context.Context, g Gomega, c client.Client) []slov1alpha1.NodeSLO {
	list := &slov1alpha1.NodeSLOList{}
	g.Expect(c.List(ctx, list)).To(Succeed())
	return list.Items
}

// readLook reads, in this order, every NodeSLO, the NodeSLORollout's status
// and the leader-election Lease, within lookTimeout. cached reads what
// kube-apiserver's watch cache holds (resourceVersion=0) instead of a
// consistent read, which waits on etcd.
func readLook(ctx context.Context, c client.Client, cached bool) (
	[]slov1alpha1.NodeSLO, nodeslov1alpha1.NodeSLORolloutStatus, coordinationv1.LeaseSpec, error) {
	ctx, cancel := context.WithTimeout(ctx, lookTimeout)
	defer cancel()
	var listOpts []client.ListOption
	var getOpts []client.GetOption
	if cached {
		listOpts = append(listOpts, &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: "0"}})
		getOpts = append(getOpts, &client.GetOptions{Raw: &metav1.GetOptions{ResourceVersion: "0"}})
	}
	slos := &slov1alpha1.NodeSLOList{}
	rollout := &nodeslov1alpha1.NodeSLORollout{}
	lease := &coordinationv1.Lease{}
	if err := c.List(ctx, slos, listOpts...); err != nil {
		return nil, nodeslov1alpha1.NodeSLORolloutStatus{}, coordinationv1.LeaseSpec{}, err
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: configMapName}, rollout, getOpts...); err != nil {
		return nil, nodeslov1alpha1.NodeSLORolloutStatus{}, coordinationv1.LeaseSpec{}, err
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: leaseName}, lease, getOpts...); err != nil {
		return nil, nodeslov1alpha1.NodeSLORolloutStatus{}, coordinationv1.LeaseSpec{}, err
	}
	return slos.Items, rollout.Status, lease.Spec, nil
}

// consistentReadAnswers reports whether a consistent read of the Lease is
// answered within two seconds: never while etcd is stopped.
func consistentReadAnswers(ctx context.Context, c client.Client) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: leaseName}, &coordinationv1.Lease{}) == nil
}

// leaderOf is the replica that says, on its /metrics, that it leads (nil:
// none does, as while the Lease names a replica that was killed).
func leaderOf(s *supervisor, scraper *metricsScraper) *managerProcess {
	for _, p := range s.running() {
		if scraper.leads(p) {
			return p
		}
	}
	return nil
}

// leads reports whether p's leader_election_master_status is 1; a replica
// that does not answer (starting, or gone) does not lead.
func (s *metricsScraper) leads(p *managerProcess) bool {
	req, err := http.NewRequest(http.MethodGet, "https://"+p.metricsAddr+"/metrics", nil)
	if err != nil {
		return false
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := s.client.Do(req)
	if err != nil {
		return false
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return false
	}
	return strings.Contains(string(body), `leader_election_master_status{name="`+leaseName+`"} 1`+"\n")
}

// since gives each time as seconds after start.
func since(start time.Time, times []time.Time) []string {
	out := make([]string, 0, len(times))
	for _, t := range times {
		out = append(out, seconds(t.Sub(start)))
	}
	return out
}
