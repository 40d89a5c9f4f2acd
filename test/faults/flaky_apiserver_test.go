//go:build faults

package faults_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
	"github.com/nodeslo/nodeslo-controller/test/faultproxy"
	"github.com/nodeslo/nodeslo-controller/test/faults"
	"github.com/nodeslo/nodeslo-controller/test/testkit"
)

// The staged rollout the faults are injected into: 5 canaries soaked for
// 10 s, then the other 495 nodes in four steps of at most 125, 15 s apart.
// Its schedule is 10 + 3 × 15 = 55 s after the canaries are written.
const (
	flakyCanaries     = 5
	flakyStepSize     = 125
	flakySoak         = 10 * time.Second
	flakyStepInterval = 15 * time.Second
	flakySteps        = 4
	flakySchedule     = flakySoak + (flakySteps-1)*flakyStepInterval
	// flakyFaults is how long the apiserver misbehaves; flakyGrace how
	// long after the later of the faults' end and the schedule's the
	// rollout may take to complete.
	flakyFaults = 60 * time.Second
	flakyGrace  = 30 * time.Second
	// canaryLabel marks the canaries for the spec's strategy.
	canaryLabel = "faults.nodeslo.koordinator.sh/canary"
	// soakLatency is what the looks allow beyond the rollout's recheck of
	// a second: the time a decision takes to start and read its caches,
	// in which a canary's write may land and be seen by it, the soak then
	// counting from the decision before.
	soakLatency = 500 * time.Millisecond
	// scenarioLabel marks the scenarios of make test-faults (build tag
	// faults): minutes each, so not in make test.
	scenarioLabel = "scenario"
)

// For a minute, the apiserver answers the manager's requests with 429s and
// 503s, resets connections after carrying writes out, and refuses half the
// NodeSLORollout's status patches with 409 Conflict, while a staged rollout
// runs (docs/behaviour.md#faults). Its rules hold while the faults are on,
// checked at every look, not only at the end: the canaries first, no step
// beyond its size, no node written twice or back, the status's counts
// what the NodeSLOs show; and it completes within its schedule plus 30 s of
// the faults ending (each step not begun by then an interval later).
var _ = Describe("a staged rollout through a minute of apiserver faults", Serial, Label(scenarioLabel), func() {
	It("keeps the rollout's rules while the faults are on, and completes soon after they end", func(ctx SpecContext) {
		writes := startManagerOn(proxiedManager, nil)
		from, to := faults.Version(60), faults.Version(61)
		before := settle(ctx, from)
		want := expected(to)
		Expect(faults.ChangesBetween(expected(from), want)).To(HaveLen(fleetSize), "every node changes")
		canaries := markCanaries(ctx)
		startStagedRollout(ctx)

		rules := injectFaults(time.Now(), flakyFaults)
		writes.Reset()
		audited := managerNodeSLOWrites()
		start := time.Now()
		// The data alone: setConfig would take the strategy off.
		testkit.WriteConfigMap(ctx, k8sClient, client.ObjectKey{Namespace: configNamespace, Name: configName}, to)

		look := flakyLook{before: before, canaries: canaries,
			target: sloconfig.Load(to, nil).Fingerprint(), lastStart: start}
		var done time.Time
		Eventually(func(g Gomega) {
			started := time.Now()
			generations := readGenerations(ctx)
			look.check(g, started, generations, rolloutStatus(ctx))
			if time.Now().Before(start.Add(flakyFaults)) {
				look.reachedUnderFaults, look.stepsUnderFaults = len(look.reached), len(look.stepsSeen)
			}
			g.Expect(look.reached).To(HaveLen(fleetSize), "every node written")
			done = time.Now()
		}).WithContext(ctx).WithTimeout(flakyFaults + flakySchedule + 2*flakyGrace).WithPolling(poll).
			Should(Succeed())

		// A step soaks its interval once its last node is written
		// (docs/rollout.md#behaviour, "a step's writes slowed"): each step
		// not yet begun when the faults end is still an interval away then.
		faultsEnd := start.Add(flakyFaults)
		deadline := faultsEnd.Add(time.Duration(flakySteps-look.stepsUnderFaults) * flakyStepInterval)
		if look.canariesAt.Add(flakySchedule).After(deadline) {
			deadline = look.canariesAt.Add(flakySchedule)
		}
		Eventually(func(g Gomega) {
			g.Expect(rolloutStatus(ctx).Phase).To(Equal(rollout.PhaseCompleted))
		}).WithContext(ctx).WithTimeout(flakyGrace).WithPolling(poll).Should(Succeed())
		after, _ := convergedAndQuiet(ctx, want)
		for name, stored := range after {
			Expect(stored.Generation).To(Equal(before[name].Generation+1), "node %s written exactly once", name)
		}
		// Counted on the server too: the audit log records a write as
		// carried out once the apiserver answered it with success. A reset
		// connection also cuts the answers of the other requests on it,
		// whose writes may have been stored: the log may count fewer than
		// the generations show, never more (no write carried out twice or
		// for nothing).
		var carried int
		Consistently(func() int { carried = managerNodeSLOWrites() - audited; return carried }).
			WithTimeout(time.Second).Should(BeNumerically("<=", fleetSize), "NodeSLO writes the apiserver carried out")
		succeeded, _, failed := writes.Totals()
		faulted := make([]string, 0, len(rules))
		for _, r := range rules {
			faulted = append(faulted, fmt.Sprintf("%s %d of %d", r.name, r.Faulted(), r.Matched()))
		}
		late, latest := look.lateness()
		figure("staged rollout through apiserver faults", "%d nodes, %d canaries, steps of %d: canaries written "+
			"%s after the change, the first others at most %s after the last canary, every node %s after it "+
			"(%s after the faults ended, the deadline %s later); "+
			"%d nodes reached while the faults were on; largest step seen %d nodes; steps seen begun %v and "+
			"complete %v after the change, later than their schedule by %v (largest %s); NodeSLO write requests: "+
			"%d succeeded, %d failed (the audit log: %d carried out and answered), for %d nodes; faults: %v",
			fleetSize, flakyCanaries, flakyStepSize, seconds(look.canariesAt.Sub(start)), seconds(look.soakSeen),
			seconds(done.Sub(start)),
			seconds(done.Sub(faultsEnd)), seconds(deadline.Add(flakyGrace).Sub(done)), look.reachedUnderFaults,
			look.largestStep, since(start, look.stepsSeen), since(start, look.stepsDone), late, seconds(latest),
			succeeded, failed, carried, fleetSize, faulted)
		Expect(done).To(BeTemporally("<=", deadline.Add(flakyGrace)),
			"completed within %s of the later of its schedule's end and the faults' (plus an interval for each "+
				"step not begun by then)", flakyGrace)
		// The faults met the rollout: NodeSLO writes and status patches
		// were faulted, and the canaries and a step were written while they
		// were on, so the looks checked the rules under them.
		var onWrites, onStatus int
		for _, r := range rules {
			if strings.Contains(r.name, "NodeSLO write") {
				onWrites += r.Faulted()
			} else {
				onStatus += r.Faulted()
			}
		}
		Expect(onWrites).To(BeNumerically(">", 0), "no NodeSLO write was faulted")
		Expect(onStatus).To(BeNumerically(">", 0), "no status patch was faulted")
		Expect(look.reachedUnderFaults).To(BeNumerically(">=", flakyCanaries+flakyStepSize/2),
			"the canaries and a step written while the faults were on")
	})
})

// namedRule is a fault rule in force, with what the figures call it.
type namedRule struct {
	*faultproxy.ActiveRule
	name string
}

// injectFaults adds, from now for d, the faults of the spec to the
// manager's requests, and removes them when the spec ends.
func injectFaults(now time.Time, d time.Duration) []namedRule {
	GinkgoHelper()
	writes := []string{faultproxy.VerbCreate, faultproxy.VerbUpdate, faultproxy.VerbPatch}
	const nodeSLOs, rollouts = "nodeslos", "nodeslorollouts"
	user := serviceaccount.MakeUsername(envtestharness.SystemNamespace, envtestharness.ServiceAccountName)
	rules := []struct {
		name string
		rule faultproxy.Rule
	}{
		{"429 on NodeSLO writes", faultproxy.Rule{Match: faultproxy.Match{Verbs: writes, Resource: nodeSLOs},
			Fault: faultproxy.TooManyRequests(1), Probability: 0.15}},
		{"reset after a NodeSLO write", faultproxy.Rule{Match: faultproxy.Match{Verbs: writes, Resource: nodeSLOs},
			Fault: faultproxy.ResetAfterForwarding(), Probability: 0.1}},
		{"503 on NodeSLO writes", faultproxy.Rule{Match: faultproxy.Match{Verbs: writes, Resource: nodeSLOs},
			Fault: faultproxy.ServiceUnavailable(0), Probability: 0.1}},
		{"409 on the NodeSLORollout's status", faultproxy.Rule{Match: faultproxy.Match{
			Verbs: []string{faultproxy.VerbPatch, faultproxy.VerbUpdate}, Resource: rollouts, Subresource: "status"},
			Fault: faultproxy.Conflict(), Probability: 0.25}},
		{"503 on the NodeSLORollout's status", faultproxy.Rule{Match: faultproxy.Match{
			Verbs: []string{faultproxy.VerbPatch, faultproxy.VerbUpdate}, Resource: rollouts, Subresource: "status"},
			Fault: faultproxy.ServiceUnavailable(0), Probability: 0.1}},
	}
	out := make([]namedRule, 0, len(rules))
	for _, r := range rules {
		r.rule.User, r.rule.From, r.rule.Until = user, now, now.Add(d)
		active, err := proxy.Add(r.rule)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(active.Remove)
		out = append(out, namedRule{ActiveRule: active, name: r.name})
	}
	return out
}

// markCanaries labels the first flakyCanaries nodes of the fleet as the
// strategy's canaries (a label no configuration version selects on), and
// takes it off when the spec ends.
func markCanaries(ctx context.Context) []string {
	GinkgoHelper()
	names := fleet.Names()[:flakyCanaries]
	label := func(ctx context.Context, value *string) {
		for _, name := range names {
			node := &corev1.Node{}
			Expect(k8sClient.Get(ctx, client.ObjectKey{Name: name}, node)).To(Succeed())
			patch := client.MergeFrom(node.DeepCopy())
			if value == nil {
				delete(node.Labels, canaryLabel)
			} else {
				node.Labels[canaryLabel] = *value
			}
			Expect(k8sClient.Patch(ctx, node, patch)).To(Succeed())
		}
	}
	label(ctx, new("true"))
	DeferCleanup(func(ctx SpecContext) { label(ctx, nil) })
	return names
}

// startStagedRollout gives the NodeSLORollout the spec's strategy.
func startStagedRollout(ctx context.Context) {
	GinkgoHelper()
	startRollout(ctx, nodeslov1alpha1.RolloutStrategy{
		MaxNodesPerStep:     new(intstr.FromInt32(flakyStepSize)),
		StepIntervalSeconds: ptr.To(int32(flakyStepInterval / time.Second)),
		Canary:              canariesSoaked(flakySoak),
	})
}

// canariesSoaked is a canary stage of the nodes markCanaries labels.
func canariesSoaked(soak time.Duration) *nodeslov1alpha1.CanaryStrategy {
	return &nodeslov1alpha1.CanaryStrategy{
		NodeSelector: metav1.LabelSelector{MatchLabels: map[string]string{canaryLabel: "true"}},
		SoakSeconds:  new(int32(soak / time.Second)),
	}
}

// startRollout gives the NodeSLORollout strategy (testkit.SetStrategy),
// waits until the manager decided on it, and takes it off when the spec
// ends (every other spec of the suite changes the nodes all at once).
func startRollout(ctx context.Context, strategy nodeslov1alpha1.RolloutStrategy) {
	GinkgoHelper()
	policy, err := json.Marshal(strategy)
	Expect(err).NotTo(HaveOccurred())
	key := client.ObjectKey{Namespace: configNamespace, Name: configName}
	testkit.SetStrategy(ctx, k8sClient, key, string(policy))
	DeferCleanup(func(ctx SpecContext) { testkit.SetStrategy(ctx, k8sClient, key, "") })
	obj := &nodeslov1alpha1.NodeSLORollout{}
	Expect(k8sClient.Get(ctx, key, obj)).To(Succeed())
	Eventually(func(g Gomega) {
		st := rolloutStatus(ctx)
		g.Expect(st.ObservedGeneration).To(Equal(obj.Generation))
		g.Expect(st.Phase).NotTo(BeEmpty())
	}).WithContext(ctx).WithTimeout(converge).WithPolling(poll).Should(Succeed())
}

// readGenerations lists the NodeSLOs' generations (their metadata only,
// so that a look is short next to the soak it measures): each is raised
// by a spec change and by nothing else.
func readGenerations(ctx context.Context) map[string]int64 {
	GinkgoHelper()
	meta := nodeSLOMeta(ctx)
	out := make(map[string]int64, len(meta))
	for name, o := range meta {
		out[name] = o.Generation
	}
	return out
}

// rolloutStatus reads the NodeSLORollout's status from the apiserver.
func rolloutStatus(ctx context.Context) nodeslov1alpha1.NodeSLORolloutStatus {
	GinkgoHelper()
	obj := &nodeslov1alpha1.NodeSLORollout{}
	Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: configNamespace, Name: configName}, obj)).To(Succeed())
	return obj.Status
}

// flakyLook checks the rules of the rollout at each look at the NodeSLOs,
// against the state before the change and the looks before.
type flakyLook struct {
	before   faults.State
	canaries []string
	// others is how many nodes beyond the canaries the looks see (0: the
	// whole fleet's), and unseen how many more the rollout's status counts.
	others, unseen int
	// target is the new configuration's fingerprint.
	target string
	// reached are the nodes seen on the new configuration so far, and
	// reachedOthers how many of them were not canaries at the last look.
	reached       map[string]bool
	reachedOthers int
	// canariesAt is when every canary was first seen reached, and
	// canariesAfter when the look before that one started (the last
	// canary was written after it); largestStep the most non-canary
	// nodes seen reached between two looks.
	canariesAt, canariesAfter time.Time
	largestStep               int
	// soakSeen bounds from above the real gap between the last canary's
	// write and the first other's.
	soakSeen time.Duration
	// reachedUnderFaults is how many nodes, and stepsUnderFaults how many
	// steps beyond the canaries', were seen reached while the faults were on.
	reachedUnderFaults, stepsUnderFaults int
	// lastStart is when the look before this one started (the first:
	// when the change was written).
	lastStart time.Time
	// stepsSeen and stepsDone are when a look first saw each step begun
	// (a node of it reached) and complete (all of its nodes reached).
	stepsSeen, stepsDone []time.Time
}

// timeline notes the step each look sees begun and complete, from the
// number of non-canary nodes reached.
func (l *flakyLook) timeline(others int) {
	others -= flakyStepSize * len(l.stepsSeen)
	for others > 0 && len(l.stepsSeen) < flakySteps {
		l.stepsSeen = append(l.stepsSeen, time.Now())
		others -= flakyStepSize
	}
	reached, all := len(l.reached)-flakyCanaries, l.others
	if all == 0 {
		all = fleetSize - flakyCanaries
	}
	for len(l.stepsDone) < len(l.stepsSeen) && reached >= min((len(l.stepsDone)+1)*flakyStepSize, all) {
		l.stepsDone = append(l.stepsDone, time.Now())
	}
}

// lateness is how much later than its schedule a look first saw each step
// begun: the canaries' soak, then flakyStepInterval after each other.
func (l *flakyLook) lateness() (late []time.Duration, largest time.Duration) {
	for k, seen := range l.stepsSeen {
		due := l.canariesAt.Add(flakySoak + time.Duration(k)*flakyStepInterval)
		late = append(late, seen.Sub(due).Round(10*time.Millisecond))
		largest = max(largest, seen.Sub(due))
	}
	return late, largest.Round(10 * time.Millisecond)
}

// check looks at the NodeSLOs s and the rollout's status st. A violation
// fails the spec at once (StopTrying): the rules hold at every look, not
// eventually.
func (l *flakyLook) check(g Gomega, started time.Time, generations map[string]int64,
	st nodeslov1alpha1.NodeSLORolloutStatus) {
	if l.reached == nil {
		l.reached = map[string]bool{}
	}
	violated := func(format string, args ...any) {
		StopTrying(fmt.Sprintf(format, args...)).Now()
	}
	others := 0
	for name, generation := range generations {
		was, ok := l.before[name]
		if !ok {
			violated("node %s has a NodeSLO it did not have", name)
		}
		switch generation - was.Generation {
		case 0:
			if l.reached[name] {
				violated("node %s went back from the new configuration", name)
			}
			continue
		case 1:
		default:
			violated("node %s written %d times", name, generation-was.Generation)
		}
		l.reached[name] = true
		if !slices.Contains(l.canaries, name) {
			others++
		}
	}
	canariesReached := 0
	for _, name := range l.canaries {
		if l.reached[name] {
			canariesReached++
		}
	}
	if others > 0 && canariesReached < len(l.canaries) {
		violated("%d nodes beyond the canaries reached with %d of %d canaries", others, canariesReached,
			len(l.canaries))
	}
	if canariesReached == len(l.canaries) && l.canariesAt.IsZero() {
		l.canariesAt, l.canariesAfter = time.Now(), l.lastStart
	}
	defer func() { l.lastStart = started }()
	// A look lists 500 NodeSLOs, which takes a while (most on a loaded
	// machine), so the real gap between the last canary's write and the
	// first other's is bounded from above: the last canary was written
	// after the start of the look before the one that first saw them all,
	// the first others by the end of this look. The rollout keeps that gap
	// at least the soak less its recheck (docs/rollout.md#behaviour, "a
	// step's writes slowed"): the next step waits the soak after the last
	// decision that saw a canary unwritten, and it decides again a second
	// after each (plus the time a decision takes to read its caches, which
	// soakLatency allows). A soak cut short by more is seen.
	if others > 0 && l.reachedOthers == 0 {
		l.soakSeen = time.Since(l.canariesAfter)
		if gap := l.soakSeen; gap < flakySoak-time.Second-soakLatency {
			violated("nodes beyond the canaries reached at most %s after the last canary, within the soak of %s",
				gap.Round(time.Millisecond), flakySoak)
		}
	}
	if step := others - l.reachedOthers; step > flakyStepSize {
		violated("%d nodes reached between two looks, more than a step of %d", step, flakyStepSize)
	} else if step > l.largestStep {
		l.largestStep = step
	}
	l.reachedOthers = others
	l.timeline(others)
	if st.Configuration != l.target {
		return
	}
	if int(st.Reached) > len(l.reached) && st.Phase != rollout.PhaseCompleted {
		// The status is written after the plan, the NodeSLOs after the
		// status: it may count a step whose writes are under way, never
		// more than a step ahead.
		if int(st.Reached)-len(l.reached) > flakyStepSize+flakyCanaries+l.unseen {
			violated("status.reached %d, %d nodes on the new configuration", st.Reached, len(l.reached))
		}
	}
	g.Expect(st.Phase).NotTo(Equal(rollout.PhaseHalted), "nothing halts")
}

// since gives each time as seconds after start.
func since(start time.Time, times []time.Time) []string {
	out := make([]string, 0, len(times))
	for _, t := range times {
		out = append(out, seconds(t.Sub(start)))
	}
	return out
}
