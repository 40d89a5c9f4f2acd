package crdskew

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
	"github.com/nodeslo/nodeslo-controller/test/localcluster"
	"github.com/nodeslo/nodeslo-controller/test/testkit"
)

// The staged rollout the fault scenarios run under: 2 canaries, then the
// other 4 nodes in steps of 2, short waits so that a spec stays within
// seconds (docs/rollout.md#the-strategy).
const (
	faultCanaries, faultNodes, faultStepSize = 2, 6, 2
	faultSoak, faultInterval                 = 3 * time.Second, 2 * time.Second
	canaryLabel                              = "nodeslo-canary"
)

var faultStrategy = fmt.Sprintf(`{"maxNodesPerStep": %d, "stepIntervalSeconds": %d, `+
	`"canary": {"nodeSelector": {"matchLabels": {%q: "true"}}, "soakSeconds": %d}}`,
	faultStepSize, int(faultInterval.Seconds()), canaryLabel, int(faultSoak.Seconds()))

// faultFleet is a manager of its own, on a control plane of its own, over
// faultNodes nodes, the first faultCanaries of them canaries, with the
// staged strategy taken up: the fault scenarios change what that control
// plane serves (a CRD, the ConfigMap), which the suite's must keep.
type faultFleet struct {
	env      *envtestharness.Environment
	c        client.Client
	writes   *localcluster.WriteLog
	probe    string
	canaries []string
	others   []string
}

// startFaultFleet starts the control plane, the manager and the nodes, puts
// data in force on every node, then sets the staged strategy.
func startFaultFleet(ctx SpecContext, data map[string]string, holds func(*slov1alpha1.NodeSLOSpec) bool) *faultFleet {
	GinkgoHelper()
	f := &faultFleet{env: envtestharness.Start(envtestharness.Options{}), writes: &localcluster.WriteLog{}}
	f.c = f.env.Client
	cfg := f.env.ManagerServiceAccount(ctx, envtestharness.ManagerRBAC)
	cfg.Wrap(f.writes.Wrap)
	_, f.probe = startLoggedManager(cfg)
	testkit.WriteConfigMap(ctx, f.c, configKey, data)
	f.canaries = testkit.Names(testkit.CreateNodes(ctx, f.c, faultCanaries, map[string]string{canaryLabel: "true"}, nil))
	f.others = testkit.Names(testkit.CreateNodes(ctx, f.c, faultNodes-faultCanaries, nil, nil))
	for _, n := range f.all() {
		Eventually(storedSpec(ctx, f.c, n)).Should(WithTransform(holds, BeTrue()), "NodeSLO of %s", n)
	}
	testkit.SetStrategy(ctx, f.c, configKey, faultStrategy)
	Eventually(func(g Gomega) {
		obj := f.rolloutObject(ctx)
		g.Expect(obj).NotTo(BeNil())
		g.Expect(obj.Status.ObservedGeneration).To(Equal(obj.Generation))
	}).Should(Succeed(), "the controller took up the strategy")
	Eventually(readyz(f.probe)).Should(Equal(http.StatusOK))
	f.writes.Reset()
	return f
}

func (f *faultFleet) all() []string { return slices.Concat(f.canaries, f.others) }

// rollout reads the NodeSLORollout (nil: not readable now).
func (f *faultFleet) rolloutObject(ctx context.Context) *nodeslov1alpha1.NodeSLORollout {
	obj := &nodeslov1alpha1.NodeSLORollout{}
	if err := f.c.Get(ctx, configKey, obj); err != nil {
		return nil
	}
	return obj
}

// look is what one poll of a fault scenario saw: the NodeSLOs, then the
// NodeSLORollout (read after them: the controller writes its status before
// the NodeSLOs of a step, so the status is never behind what they show).
type look struct {
	at     time.Time
	specs  map[string]*slov1alpha1.NodeSLOSpec
	status nodeslov1alpha1.NodeSLORolloutStatus
	ready  int
}

func (f *faultFleet) look(ctx context.Context) look {
	l := look{at: time.Now(), specs: map[string]*slov1alpha1.NodeSLOSpec{}}
	for _, n := range f.all() {
		l.specs[n], _ = storedSpec(ctx, f.c, n)()
	}
	if obj := f.rolloutObject(ctx); obj != nil {
		l.status = obj.Status
	}
	l.ready, _ = readyz(f.probe)()
	return l
}

// breaks returns the rule of docs/rollout.md#behaviour the look breaks for
// a rollout towards what reached says ("": none): every NodeSLO exists;
// no node beyond the canaries is reached before all of them are, nor more
// than the batch steps taken allow; no node is written more than most
// times; the rollout is not halted; /readyz answers 200.
func (f *faultFleet) breaks(l look, reached func(*slov1alpha1.NodeSLOSpec) bool, most int) string {
	canaries, others := 0, 0
	for n, spec := range l.specs {
		switch {
		case spec == nil:
			return "the NodeSLO of " + n + " is gone"
		case !reached(spec):
		case slices.Contains(f.canaries, n):
			canaries++
		default:
			others++
		}
		if w := f.writes.Succeeded(n); w > most {
			return fmt.Sprintf("%s written %d times, at most %d allowed", n, w, most)
		}
	}
	if others > 0 && canaries < faultCanaries {
		return fmt.Sprintf("%d other nodes reached before every canary (%d of %d)", others, canaries, faultCanaries)
	}
	if allowed := int(l.status.StepSize) * max(int(l.status.Step)-1, 0); others > allowed {
		return fmt.Sprintf("%d other nodes reached, the %d steps taken allow %d", others, l.status.Step, allowed)
	}
	if l.status.Phase == rollout.PhaseHalted {
		return "the rollout halted"
	}
	if l.ready != http.StatusOK {
		return fmt.Sprintf("/readyz answered %d", l.ready)
	}
	return ""
}

// schedule keeps when each step of a rollout was first seen, to say how
// late each was on the strategy's waits.
type schedule struct {
	seen map[int32]time.Time
}

func newSchedule() *schedule { return &schedule{seen: map[int32]time.Time{}} }

func (s *schedule) observe(l look) {
	if _, ok := s.seen[l.status.Step]; !ok && l.status.Step > 0 {
		s.seen[l.status.Step] = l.at
	}
}

// lateness is the largest delay of a step past the wait before it (the
// soak after the canaries, the interval after a batch), counted from when
// the step before was seen; negative would be a step taken early.
func (s *schedule) lateness() (late time.Duration) {
	late = -time.Hour
	for step, at := range s.seen {
		before, ok := s.seen[step-1]
		if !ok {
			continue
		}
		wait := faultInterval
		if step == 2 {
			wait = faultSoak
		}
		late = max(late, at.Sub(before)-wait)
	}
	return late
}

// figure prints a spec's figure in the -v output and in the report, as
// test/faults does.
func figure(name, format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	GinkgoWriter.Printf("FIGURE %s: %s\n", name, text)
	AddReportEntry(name, text)
}

// seconds formats a duration as seconds with two decimals.
func seconds(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }
