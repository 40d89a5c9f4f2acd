package plugin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/api/scheme"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// `rollout status` prints the status the controller published on the
// NodeSLORollout; these tests write that status as the controller would
// and check what is printed, and that nothing else is read.

// statusData sets the cpu suppress threshold, with a rollout of 2 nodes a
// step every minute, canaries first (pool=canary).
func statusData(threshold int, paused bool) map[string]string {
	return map[string]string{
		string(sloconfig.KeyResourceThreshold): fmt.Sprintf(
			`{"clusterStrategy": {"enable": true, "cpuSuppressThresholdPercent": %d}}`, threshold),
		string(sloconfig.KeyRollout): fmt.Sprintf(`{"maxNodesPerStep": 2, "stepIntervalSeconds": 60, "paused": %t,
			"canary": {"nodeSelector": {"matchLabels": {"pool": "canary"}}, "soakSeconds": 300}}`, paused),
	}
}

// gateData is statusData with a health gate (gate is the healthGate
// object as written) and "paused" as given.
func gateData(paused bool, gate string) map[string]string {
	data := statusData(40, false)
	data[string(sloconfig.KeyRollout)] = fmt.Sprintf(`{"maxNodesPerStep": 2, "stepIntervalSeconds": 60, "paused": %t,
		"canary": {"nodeSelector": {"matchLabels": {"pool": "canary"}}, "soakSeconds": 300},
		"healthGate": %s}`, paused, gate)
	return data
}

// invalidRolloutKey is a strategy that fails validation, written as a
// value of the retired rollout key.
const invalidRolloutKey = `{"canary": {"nodeSelector": {"matchExpressions": [{"key": "a", "operator": "Near"}]}}}`

const worker0 = "worker-0"

var twoUnhealthy = map[string]string{
	worker0: "Ready=False since 17:00:10",
	worker2: "4 Pod evictions (4 containers terminated non-zero), at most 3 allowed",
}

var (
	statusRef   = ConfigMapRef{Namespace: sloconfig.DefaultConfigMapNamespace, Name: sloconfig.DefaultConfigMapName}
	statusKey   = client.ObjectKey{Namespace: statusRef.Namespace, Name: statusRef.Name}
	statusStart = time.Date(2026, 11, 30, 16, 0, 0, 0, time.UTC)
	stepAt      = statusStart.Add(time.Hour)
)

// midRollout is the status the controller leaves for data's rollout after
// the canary step and one batch: 3 of 5 nodes reached.
func midRollout(data map[string]string) apiStatus {
	return apiStatus{
		Configuration: sloconfig.Load(data, nil).Fingerprint(), RolloutKey: keyOf(data),
		Phase: rollout.PhaseProgressing, Started: mt(statusStart), Step: 2, Steps: 3, StepSize: 2,
		Reached: 3, PendingAtStart: 5, Pending: 2, NextStep: mt(stepAt.Add(time.Minute)), Updated: mt(stepAt),
	}
}

// halted is midRollout halted by a gate that allowed 1 unhealthy node
// (setting as written; "": the strategy has no gate) of 3 judged, with the
// verdicts given.
func halted(data map[string]string, setting string, unhealthy map[string]string) apiStatus {
	s := midRollout(data)
	s.Phase, s.NextStep, s.Updated = rollout.PhaseHalted, nil, mt(stepAt.Add(30*time.Second))
	h := &nodeslov1alpha1.RolloutHealth{MaxUnhealthyNodes: setting, Allowed: 1, AllowedOf: 3,
		Unhealthy: int32(len(unhealthy)),
		HaltedAt:  s.Updated, HaltedKey: keyOf(data)}
	if setting != "" {
		spec, _ := decodeStrategy(data[string(sloconfig.KeyRollout)]) // the fixtures' keys decode
		h.Revert = spec.Strategy.HealthGate.OnUnhealthy == rollout.OnUnhealthyRevert
		onUnhealthy := "pause"
		if h.Revert {
			onUnhealthy = "revert"
		}
		h.Gate = "maxUnhealthyNodes " + setting + "; nodeConditions Ready, MemoryPressure, DiskPressure, PIDPressure; " +
			"evictions of Pods koordinator.sh/qosClass=BE in namespaces batch, maxPerNode 3; onUnhealthy " + onUnhealthy
	}
	for _, name := range []string{worker0, worker1, worker2} {
		if signal, ok := unhealthy[name]; ok {
			h.Nodes = append(h.Nodes, nodeslov1alpha1.NodeVerdict{Name: name, Signal: signal})
		}
	}
	s.Health = h
	return s
}

// keyOf is the fingerprint the controller takes of the strategy that
// holds the policy of data's retired rollout key (strategySpec): that of its JSON
// (rollout.StrategyJSON); "" without one.
func keyOf(data map[string]string) string {
	raw, ok := data[string(sloconfig.KeyRollout)]
	if !ok {
		return ""
	}
	spec, err := decodeStrategy(raw)
	if err != nil {
		panic(err)
	}
	return rollout.KeyFingerprint(rollout.StrategyJSON(spec.Strategy))
}

// fakeConfigMapVersion is the resourceVersion the fake client gives the
// ConfigMap of statusCluster.
const fakeConfigMapVersion = "999"

// decided is the NodeSLORollout the controller leaves when it decided s
// (nil: no status yet), with revision number in force, on the ConfigMap of
// statusCluster as it stands and on the spec of generation 1.
func decided(number int64, s *apiStatus) *nodeslov1alpha1.NodeSLORollout {
	obj := rolloutObject(statusRef, nodeslov1alpha1.NodeSLORolloutSpec{}, nodeslov1alpha1.NodeSLORolloutStatus{})
	obj.Generation = 1
	if s != nil {
		obj.Status = *s.DeepCopy()
		obj.Status.ObservedGeneration, obj.Status.ObservedConfigMapVersion = 1, fakeConfigMapVersion
		obj.Status.Revision = number
	}
	return obj
}

// statusCluster holds the ConfigMap with data (nil: none) and obj (nil:
// no NodeSLORollout). It has no Node, no NodeSLO and no revision: the
// status needs none.
func statusCluster(t *testing.T, data map[string]string, obj *nodeslov1alpha1.NodeSLORollout) client.Client {
	t.Helper()
	var objs []client.Object
	if obj != nil {
		objs = append(objs, obj)
	}
	if data == nil {
		return fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objs...).
			WithStatusSubresource(&nodeslov1alpha1.NodeSLORollout{}).Build()
	}
	c, _ := pauseFixture(data, objs...)
	if rv := readConfigMap(t, c, statusRef).ResourceVersion; rv != fakeConfigMapVersion {
		t.Fatalf("the fake client gave the ConfigMap resourceVersion %q, not %q", rv, fakeConfigMapVersion)
	}
	return c
}

// onlyConfigMapAndNodeSLORollout fails the test on any read but of the
// ConfigMap and the NodeSLORollout.
type onlyConfigMapAndNodeSLORollout struct {
	client.Reader
	t *testing.T
}

func (r onlyConfigMapAndNodeSLORollout) Get(ctx context.Context, key client.ObjectKey, obj client.Object,
	opts ...client.GetOption) error {
	switch obj.(type) {
	case *corev1.ConfigMap, *nodeslov1alpha1.NodeSLORollout:
	default:
		r.t.Errorf("rollout status read a %T", obj)
	}
	return r.Reader.Get(ctx, key, obj, opts...)
}

func (r onlyConfigMapAndNodeSLORollout) List(ctx context.Context, list client.ObjectList,
	opts ...client.ListOption) error {
	r.t.Errorf("rollout status listed %T", list)
	return r.Reader.List(ctx, list, opts...)
}

// readEveryTime stands for the watch in the tests of the wait: it reads
// the status anew at each Next, as if a change came before each (a
// millisecond apart, so that a timeout passes); the watch itself is
// checked against a kube-apiserver (cluster_status_watch_test.go).
type readEveryTime struct {
	c     client.Reader
	reads int
}

func (r *readEveryTime) Next(ctx context.Context) (RolloutStatus, error) {
	if r.reads > 0 {
		select {
		case <-ctx.Done():
			return RolloutStatus{}, ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
	r.reads++
	return FetchRolloutStatus(ctx, r.c, statusKey)
}

func followStatus(t *testing.T, c client.Reader, watch bool) (string, error) {
	t.Helper()
	return followStatusFor(t, c, statusFollow{watch: watch})
}

func followStatusFor(t *testing.T, c client.Reader, opts statusFollow) (string, error) {
	t.Helper()
	var out bytes.Buffer
	src := &readEveryTime{c: onlyConfigMapAndNodeSLORollout{Reader: c, t: t}}
	err := followRollout(context.Background(), src, &out, opts)
	return out.String(), err
}

// expectPrintedOnce checks that --watch=false printed a status not
// complete and ended with exit status 0, as kubectl's does.
func expectPrintedOnce(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Errorf("--watch=false on a rollout not halted: %v, want exit status 0", err)
	}
}

// expectHalted checks that the wait ended on a halt, with exit status 1.
func expectHalted(t *testing.T, err error) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), "halted by its health gate") {
		t.Fatalf("error %v, want the halt", err)
	}
	expectFailed(t, err, "error: rollout of configuration ")
}

// expectFailed checks that err ends the plugin with exit status 1, saying
// what it begins with.
func expectFailed(t *testing.T, err error, says string) {
	t.Helper()
	var errOut bytes.Buffer
	got := exitCode(err, ExitError, &errOut)
	if got != ExitError || !strings.HasPrefix(errOut.String(), says) {
		t.Errorf("exit status %d, saying %q; want %d, saying %q...", got, errOut.String(), ExitError, says)
	}
}

func TestRolloutStatusMidRollout(t *testing.T) {
	data := statusData(40, false)
	s := midRollout(data)
	out, err := followStatus(t, statusCluster(t, data, decided(5, &s)), false)
	expectPrintedOnce(t, err)
	golden(t, "rollout-status-progressing.txt", out)
}

// A pause says where it comes from: spec.paused; a pause of the status that
// spec.paused does not name is said to be one, and no more.
func TestRolloutStatusPausedCanaryPending(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec bool
		want string
	}{
		{"by spec.paused", true, "paused: yes (spec.paused: true)"},
		{"not by spec.paused", false, "paused: yes (paused)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := midRollout(statusData(40, tc.spec))
			s.Phase, s.Paused, s.Step, s.Reached, s.Pending, s.CanariesPending, s.NextStep =
				rollout.PhasePaused, true, 0, 0, 5, 1, nil
			obj := decided(1, &s)
			data := underStrategy(t, statusData(40, tc.spec), obj)
			if obj.Spec.Paused != tc.spec || obj.Spec.Strategy == nil {
				t.Fatalf("the fixture's spec: %+v", obj.Spec)
			}
			out, err := followStatus(t, statusCluster(t, data, obj), false)
			expectPrintedOnce(t, err)
			expectLines(t, out, "step 0 of 3", "reached: 0 of 5 nodes", "pending: 5 nodes (1 canaries)", tc.want+"\n")
			if strings.Contains(out, "next step") || strings.Contains(out, "error:") {
				t.Errorf("a paused rollout has no next step, a valid strategy no error:\n%s", out)
			}
		})
	}
}

func TestRolloutStatusCompleteExitsZero(t *testing.T) {
	data := statusData(40, false)
	s := midRollout(data)
	s.Phase, s.Step, s.Reached, s.Pending, s.NextStep, s.Completed =
		rollout.PhaseCompleted, 3, 5, 0, nil, mt(stepAt.Add(2*time.Minute))
	for _, watch := range []bool{false, true} {
		out, err := followStatus(t, statusCluster(t, data, decided(1, &s)), watch)
		if err != nil {
			t.Errorf("watch %t: %v", watch, err)
		}
		expectLines(t, out, "step 3 of 3", "reached: 5 of 5 nodes", "pending: 0 nodes (0 canaries)",
			"complete: every node has the configuration in force, since 2026-11-30T17:02:00Z")
	}
}

// The step's writes have not all landed: no time can be given yet. The
// last step taken: completion follows its writes.
func TestRolloutStatusAwaitingWrites(t *testing.T) {
	data := statusData(40, false)
	s := midRollout(data)
	s.NextStep, s.AwaitingWrites = nil, true
	out, _ := followStatus(t, statusCluster(t, data, decided(1, &s)), false)
	expectLines(t, out, "next step: an interval after the NodeSLOs of step 2 are all written (some are not yet)\n")

	s.AwaitingWrites, s.Step, s.Reached, s.Pending = false, 3, 5, 0
	out, err := followStatus(t, statusCluster(t, data, decided(1, &s)), false)
	expectPrintedOnce(t, err)
	expectLines(t, out, "complete: once the NodeSLOs of the last step are written\n")
}

// The ConfigMap changed (its resourceVersion is not the one the status
// observed), and the controller has not decided on it yet: the status is
// about the ConfigMap as it was, and is not printed as this one's, even
// where its configuration would be the same. --watch waits until the
// controller takes it up.
func TestRolloutStatusBeforeTheControllerTakesItUp(t *testing.T) {
	data := statusData(40, false)
	s := midRollout(data)
	obj := decided(1, &s)
	obj.Status.ObservedConfigMapVersion = "998"
	c := statusCluster(t, data, obj)
	out, err := followStatus(t, c, false)
	expectPrintedOnce(t, err)
	want := "the controller has not taken up ConfigMap koordinator-system/slo-controller-config at resourceVersion 999 " +
		"(the status is of 998) yet; in force: configuration " + rollout.ShortTarget(s.Configuration) + " (revision 1)\n"
	if out != want {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}

	done := midRollout(data)
	done.Phase, done.Completed = rollout.PhaseCompleted, mt(stepAt)
	reader := &takeUpAfterReads{Client: c, t: t, after: 3, number: 2, status: done}
	out, err = followStatus(t, reader, true)
	if err != nil {
		t.Fatalf("--watch: %v", err)
	}
	progress, after := cutProgress(out)
	wantLine := "Waiting for the controller to take up ConfigMap koordinator-system/slo-controller-config " +
		"at resourceVersion 999 (the status is of 998) (in force: configuration " + rollout.ShortTarget(s.Configuration) +
		", revision 1)..."
	if !slices.Equal(progress, []string{wantLine}) || reader.reads < 3 {
		t.Fatalf("--watch printed no progress line, or ended before the controller took it up:\n%s", out)
	}
	expectLines(t, after, "complete: every node", "updated: 2026-11-30T17:00:00Z (the controller's status on "+
		"NodeSLORollout koordinator-system/slo-controller-config; revision 2 in force)")
}

// The NodeSLORollout's spec changed (a rollout pause a moment ago: its
// generation is not the one the status observed): until the controller
// decides on it, the status is not printed as the rollout's. With the
// ConfigMap changed too, both are said.
func TestRolloutStatusSpecChangedSince(t *testing.T) {
	data := statusData(40, false)
	s := midRollout(data)
	obj := decided(1, &s)
	obj.Generation, obj.Spec.Paused = 2, true
	out, err := followStatus(t, statusCluster(t, data, obj), false)
	expectPrintedOnce(t, err)
	want := "the controller has not taken up the spec of NodeSLORollout koordinator-system/slo-controller-config " +
		"at generation 2 (the status is of 1) yet; in force: configuration " + rollout.ShortTarget(s.Configuration) +
		" (revision 1)\n"
	if out != want {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}

	obj.Status.ObservedConfigMapVersion = "998"
	out, _ = followStatus(t, statusCluster(t, data, obj), false)
	expectLines(t, out, "the controller has not taken up ConfigMap koordinator-system/slo-controller-config "+
		"at resourceVersion 999 (the status is of 998) and the spec of NodeSLORollout "+
		"koordinator-system/slo-controller-config at generation 2 (the status is of 1) yet; ")
}

// takeUpAfterReads stands for the controller: at the after-th read of the
// ConfigMap, it decides status, revision number in force, on the
// ConfigMap and the spec as they stand.
type takeUpAfterReads struct {
	client.Client
	t      *testing.T
	after  int
	reads  int
	number int64
	status apiStatus
}

func (r *takeUpAfterReads) Get(ctx context.Context, key client.ObjectKey, obj client.Object,
	opts ...client.GetOption) error {
	if _, ok := obj.(*corev1.ConfigMap); ok {
		if r.reads++; r.reads == r.after {
			r.decide(ctx, key)
		}
	}
	return r.Client.Get(ctx, key, obj, opts...)
}

func (r *takeUpAfterReads) decide(ctx context.Context, key client.ObjectKey) {
	cm, obj := &corev1.ConfigMap{}, &nodeslov1alpha1.NodeSLORollout{}
	if err := r.Client.Get(ctx, key, cm); err != nil {
		r.t.Fatal(err)
	}
	if err := r.Client.Get(ctx, key, obj); err != nil {
		r.t.Fatal(err)
	}
	obj.Status = *r.status.DeepCopy()
	obj.Status.Revision, obj.Status.ObservedGeneration = r.number, obj.Generation
	obj.Status.ObservedConfigMapVersion = cm.ResourceVersion
	if err := r.Status().Update(ctx, obj); err != nil {
		r.t.Fatal(err)
	}
}

func TestRolloutStatusInvalidStrategyHolds(t *testing.T) {
	data := statusData(40, false)
	data[string(sloconfig.KeyRollout)] = invalidRolloutKey
	s := midRollout(data)
	s.Phase, s.StrategyInvalid, s.Steps, s.StepSize, s.NextStep = rollout.PhasePaused, true, 0, 0, nil
	obj := decided(1, &s)
	data = underStrategy(t, data, obj)
	out, err := followStatus(t, statusCluster(t, data, obj), false)
	expectPrintedOnce(t, err)
	expectLines(t, out, "error: spec.strategy.canary.nodeSelector.matchExpressions[0].operator: Invalid value: \"Near\"",
		"2 steps taken, started 2026-11-30T16:00:00Z; held until spec.strategy is valid",
		"pending: 2 nodes", "paused: yes (spec.strategy is invalid)")
	if strings.Contains(out, "next step") || strings.Contains(out, "of 0") {
		t.Errorf("an invalid strategy has no schedule:\n%s", out)
	}
}

// A NodeSLORollout without spec.strategy: every change goes to every node
// at once, which is all the status says (no error, nothing pending).
func TestRolloutStatusWithoutAStrategy(t *testing.T) {
	data := withoutRolloutKey(statusData(40, false))
	s := apiStatus{Configuration: sloconfig.Load(data, nil).Fingerprint(), Phase: rollout.PhaseAllAtOnce,
		Updated: mt(stepAt)}
	obj := decided(1, &s)
	if obj.Spec.Strategy != nil {
		t.Fatalf("the fixture has a strategy: %+v", obj.Spec)
	}
	out, err := followStatus(t, statusCluster(t, data, obj), false)
	if err != nil {
		t.Errorf("nothing to wait for: %v", err)
	}
	want := "no spec.strategy: every change reaches every node at once\n" +
		"configuration " + rollout.ShortTarget(s.Configuration) + ": put in force for every node at once\n" +
		"updated: 2026-11-30T17:00:00Z (the controller's status on NodeSLORollout " +
		"koordinator-system/slo-controller-config; revision 1 in force)\n"
	if out != want {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}
}

// A deleted ConfigMap is reset to the defaults under the strategy: the
// status of that rollout, decided on no ConfigMap, is taken up. One decided
// on the ConfigMap before its deletion is not.
func TestRolloutStatusOfADeletedConfigMap(t *testing.T) {
	s := midRollout(nil)
	s.RolloutKey = keyOf(statusData(40, false))
	obj := decided(2, &s)
	obj.Status.ObservedConfigMapVersion = ""
	out, _ := followStatus(t, statusCluster(t, nil, obj), false)
	expectLines(t, out, "step 2 of 3", "; revision 2 in force)")
	if strings.Contains(out, "not taken up") {
		t.Errorf("the reset is the configuration in force:\n%s", out)
	}

	out, err := followStatus(t, statusCluster(t, nil, decided(2, &s)), false)
	expectPrintedOnce(t, err)
	expectLines(t, out, "the controller has not taken up the deletion of ConfigMap "+
		"koordinator-system/slo-controller-config (the status is of resourceVersion 999) yet; in force: configuration ")
}

func TestRolloutStatusWithoutAStatus(t *testing.T) {
	data := statusData(40, false)
	for name, tc := range map[string]struct {
		obj  *nodeslov1alpha1.NodeSLORollout
		want string
	}{
		"no NodeSLORollout": {nil, "NodeSLORollout koordinator-system/slo-controller-config does not exist: " +
			"every change of ConfigMap koordinator-system/slo-controller-config reaches every node at once " +
			"(its operator creates it, with the spec.strategy of a staged rollout: docs/rollout.md#the-strategy)\n"},
		"a NodeSLORollout without a status": {decided(0, nil), "NodeSLORollout koordinator-system/slo-controller-config " +
			"has no status yet: the controller has not decided on ConfigMap koordinator-system/slo-controller-config " +
			"(is it running?)\n"},
	} {
		t.Run(name, func(t *testing.T) {
			out, err := followStatus(t, statusCluster(t, data, tc.obj), false)
			expectPrintedOnce(t, err)
			if out != tc.want {
				t.Errorf("output:\n%s\nwant:\n%s", out, tc.want)
			}
		})
	}
}

func TestRolloutStatusHaltedByTheGate(t *testing.T) {
	data := gateData(false, `{"maxUnhealthyNodes": 1}`)
	s := halted(data, "1", twoUnhealthy)
	out, err := followStatus(t, statusCluster(t, data, decided(7, &s)), false)
	expectHalted(t, err)
	// docs/kubectl-nodeslo.md#a-rollout-the-health-gate-halted shows this output.
	golden(t, "rollout-status-halted.txt", out)
}

// A second halt after a resume counts only the nodes beyond those the
// resume tolerated, as the controller does, and lists every one.
func TestRolloutStatusHaltedAgainAfterAResume(t *testing.T) {
	data := gateData(false, `{"maxUnhealthyNodes": 1}`)
	s := halted(data, "1", map[string]string{worker0: "Ready=False since 17:00:10",
		worker1: "Ready=False since 17:20:00", worker2: "Ready=False since 17:21:00"})
	s.Health.Tolerated = 1
	out, _ := followStatus(t, statusCluster(t, data, decided(1, &s)), false)
	expectLines(t, out, "2 reached nodes unhealthy beyond the 1 a resume tolerated, more than the 1 allowed\n",
		"unhealthy node worker-0:", "unhealthy node worker-1:", "unhealthy node worker-2:")
}

func TestRolloutStatusHaltedAndPausedSaysBoth(t *testing.T) {
	data := gateData(true, `{"maxUnhealthyNodes": 1}`)
	s := halted(data, "1", twoUnhealthy)
	s.Paused = true
	obj := decided(1, &s)
	data = underStrategy(t, data, obj)
	if !obj.Spec.Paused {
		t.Fatalf("the fixture is not paused: %+v", obj.Spec)
	}
	out, _ := followStatus(t, statusCluster(t, data, obj), false)
	expectLines(t, out, "paused: yes (halted by the health gate; spec.paused: true)\n", "halted: yes")
}

// A percent says what it is a percent of: the nodes the gate judged at the
// halt, as the status holds them.
func TestRolloutStatusHaltedUnderAPercent(t *testing.T) {
	data := gateData(false, `{"maxUnhealthyNodes": "10%", "onUnhealthy": "revert"}`)
	s := halted(data, "10%", map[string]string{worker1: "MemoryPressure=True since 17:00:20"})
	s.Health.Allowed = 0
	out, _ := followStatus(t, statusCluster(t, data, decided(1, &s)), false)
	expectLines(t, out,
		"; onUnhealthy revert\n",
		"halted: yes, by the health gate at 2026-11-30T17:00:30Z: 1 reached node unhealthy, "+
			"more than the 0 allowed (maxUnhealthyNodes 10% of 3 reached nodes)\n",
		"unhealthy node worker-1: MemoryPressure=True since 17:00:20\n",
		"reverting to the previous revision")
	if strings.Contains(out, "resume: kubectl") {
		t.Errorf("a rollout being reverted offers a resume:\n%s", out)
	}
}

// A halt the status does not know the allowance of (recorded by an older
// controller) still says it halted.
func TestRolloutStatusHaltedAllowanceUnknown(t *testing.T) {
	data := gateData(false, `{"maxUnhealthyNodes": 1}`)
	s := halted(data, "1", twoUnhealthy)
	s.Health.Allowed = -1
	out, _ := followStatus(t, statusCluster(t, data, decided(1, &s)), false)
	expectLines(t, out, "2 reached nodes unhealthy, more than the gate allowed\n")
}

// A halt after the last node was reached (within the soak) is not a
// completed rollout: with or without --watch, the wait ends on it with exit
// status 1, as kubectl's does on a Deployment past its progress deadline.
// Once a resume is written (spec.resume, a new generation), the halt is not
// the status of the spec as it stands: the watch goes on until the
// controller takes it up and the rollout completes.
func TestRolloutStatusHaltAfterTheLastStepIsNotDone(t *testing.T) {
	data := gateData(false, `{"maxUnhealthyNodes": 1}`)
	s := halted(data, "1", twoUnhealthy)
	s.Step, s.Reached, s.Pending, s.Completed = 3, 5, 0, mt(stepAt)
	c := statusCluster(t, data, decided(1, &s))
	for _, watch := range []bool{false, true} {
		out, err := followStatus(t, c, watch)
		expectHalted(t, err)
		expectLines(t, out, "pending: 0 nodes", "halted: yes")
		if strings.Contains(out, "complete:") || strings.Contains(out, "---") {
			t.Errorf("watch %t: a halted rollout says it is complete, or was printed again:\n%s", watch, out)
		}
	}

	obj := decided(1, &s)
	obj.Generation, obj.Spec.Resume = 2, haltReference("", s.Health.HaltedAt.Time)
	c = statusCluster(t, data, obj)
	resumed := s
	resumed.Phase, resumed.Updated = rollout.PhaseCompleted, mt(stepAt.Add(time.Minute))
	health := *s.Health
	health.HaltedAt, health.HaltedKey, health.Tolerated = nil, "", 2
	resumed.Health = &health
	reader := &takeUpAfterReads{Client: c, t: t, after: 3, number: 1, status: resumed}
	out, err := followStatus(t, reader, true)
	if err != nil {
		t.Fatalf("--watch after the resume: %v", err)
	}
	progress, after := cutProgress(out)
	resumeLine := "Waiting for the controller to take up the spec of NodeSLORollout " +
		"koordinator-system/slo-controller-config at generation 2 (the status is of 1)"
	if len(progress) != 1 || !strings.HasPrefix(progress[0], resumeLine) || reader.reads < 3 {
		t.Fatalf("--watch ended before the resume:\n%s", out)
	}
	expectLines(t, after, "paused: no", "unhealthy: 2 reached nodes, 2 of them tolerated by a resume; "+
		"beyond those, the gate halts on more than the 1 allowed\n", "complete: every node")
}

// By default the status is watched, as kubectl's: one progress line per
// change, until the rollout completed, then the whole status once, exit
// status 0.
func TestRolloutStatusWatchesUntilComplete(t *testing.T) {
	data := statusData(40, false)
	s := midRollout(data)
	c := statusCluster(t, data, decided(1, &s))
	done := midRollout(data)
	done.Phase, done.Step, done.Reached, done.Pending, done.NextStep, done.Completed =
		rollout.PhaseCompleted, 3, 5, 0, nil, mt(stepAt.Add(2*time.Minute))
	reader := &takeUpAfterReads{Client: c, t: t, after: 5, number: 2, status: done}
	out, err := followStatusFor(t, reader, statusFollow{watch: true})
	if err != nil {
		t.Fatalf("the rollout completed: %v", err)
	}
	progress, complete := cutProgress(out)
	want := []string{"Waiting for rollout of configuration " + rollout.ShortTarget(s.Configuration) +
		": 3 of 5 nodes reached, step 2 of 3..."}
	if reader.reads < 5 || !slices.Equal(progress, want) {
		t.Fatalf("one progress line per change, then the whole status; read %d times:\n%s", reader.reads, out)
	}
	if strings.Count(complete, "reached: ") != 1 {
		t.Errorf("the whole status is printed once:\n%s", out)
	}
	expectLines(t, complete, "reached: 5 of 5 nodes", "complete: every node has the configuration in force")
}

// --timeout ends the wait with kubectl's wording and exit status 1; 0
// waits forever (until the rollout completes).
func TestRolloutStatusTimesOut(t *testing.T) {
	data := statusData(40, false)
	s := midRollout(data)
	c := statusCluster(t, data, decided(1, &s))
	wait := statusFollow{watch: true, timeout: 20 * time.Millisecond}
	out, err := followStatusFor(t, c, wait)
	if !errors.Is(err, errTimedOut) {
		t.Fatalf("error %v, want the timeout", err)
	}
	expectFailed(t, err, "error: timed out waiting for the condition\n")
	expectLines(t, out, "reached: 3 of 5 nodes")

	reader := &takeUpAfterReads{Client: c, t: t, after: 20, number: 2, status: apiStatus{
		Configuration: s.Configuration, RolloutKey: s.RolloutKey, Phase: rollout.PhaseCompleted, Updated: mt(stepAt)}}
	if _, err := followStatusFor(t, reader, statusFollow{watch: true}); err != nil {
		t.Errorf("no timeout: %v", err)
	}
}

// Every error of rollout status exits 1 and says why on stderr, as
// kubectl's: a cluster it cannot reach, a flag it cannot parse, an
// argument, a status it cannot read.
func TestRolloutStatusErrorsExitOne(t *testing.T) {
	for name, args := range map[string][]string{
		"no kubeconfig":  {"--kubeconfig", t.TempDir() + "/none"},
		"a bad timeout":  {"--timeout", "soon"},
		"a bad watch":    {"--watch=maybe"},
		"an argument":    {sloconfig.DefaultConfigMapName},
		"an unknown one": {"--follow"},
	} {
		t.Run(name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			args = append([]string{"rollout", "status"}, args...)
			if code := Execute(args, IOStreams{Out: &out, ErrOut: &errOut}); code != ExitError ||
				!strings.HasPrefix(errOut.String(), "error: ") {
				t.Errorf("exit status %d, stderr %q", code, errOut.String())
			}
		})
	}
	data := statusData(40, false)
	s := midRollout(data)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: statusRef.Namespace, Name: statusRef.Name},
		Data: data}
	forbidden := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(cm, decided(1, &s)).
		WithInterceptorFuncs(interceptor.Funcs{Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey,
			obj client.Object, opts ...client.GetOption) error {
			if _, ok := obj.(*nodeslov1alpha1.NodeSLORollout); ok {
				return apierrors.NewForbidden(nodeslov1alpha1.GroupVersion.WithResource("nodeslorollouts").GroupResource(),
					key.Name, errors.New("no get"))
			}
			return c.Get(ctx, key, obj, opts...)
		}}).Build()
	_, err := followStatus(t, forbidden, true)
	expectFailed(t, err, "error: reading NodeSLORollout koordinator-system/slo-controller-config: ")
}

func TestRolloutStatusVerdictsBelowTheLimit(t *testing.T) {
	data := gateData(false, `{"maxUnhealthyNodes": 1}`)
	s := halted(data, "1", map[string]string{worker1: "Ready=Unknown since 17:00:05"})
	s.Phase, s.NextStep, s.Health.HaltedAt, s.Health.HaltedKey = rollout.PhaseProgressing, mt(stepAt.Add(time.Minute)),
		nil, ""
	out, _ := followStatus(t, statusCluster(t, data, decided(1, &s)), false)
	expectLines(t, out, "paused: no\n",
		"unhealthy: 1 reached node; the gate halts on more than the 1 allowed\n",
		"unhealthy node worker-1: Ready=Unknown since 17:00:05\n",
		"next step: 2026-11-30T17:01:00Z")
	for _, absent := range []string{"halted:", "resume:", "undo:"} {
		if strings.Contains(out, absent) {
			t.Errorf("a rollout not halted says %q:\n%s", absent, out)
		}
	}
}

// After `rollout resume` wrote spec.resume, and before the controller took
// it up, the halt is not the status of the spec as it stands: --watch=false
// says the controller has not taken the spec up, and exits 0, as for any
// status not taken up, rather than ending on the halt.
func TestRolloutStatusResumeNotTakenUpYet(t *testing.T) {
	data := gateData(false, `{"maxUnhealthyNodes": 1}`)
	s := halted(data, "1", twoUnhealthy)
	obj := decided(1, &s)
	obj.Generation, obj.Spec.Resume = 2, haltReference("", s.Health.HaltedAt.Time)
	out, err := followStatus(t, statusCluster(t, data, obj), false)
	expectPrintedOnce(t, err)
	expectLines(t, out, "the controller has not taken up the spec of NodeSLORollout "+
		"koordinator-system/slo-controller-config at generation 2 (the status is of 1) yet")
	for _, absent := range []string{"halted:", "resume: kubectl"} {
		if strings.Contains(out, absent) {
			t.Errorf("a resume not taken up yet says %q:\n%s", absent, out)
		}
	}
}

// A strategy without a gate prints no gate line; the verdicts of a gate
// the strategy no longer has are still listed. Verdicts the status left out are counted.
func TestRolloutStatusGateRemovedAndNodesLeftOut(t *testing.T) {
	data := statusData(40, false)
	s := halted(data, "", twoUnhealthy)
	s.Phase, s.Health.HaltedAt, s.Health.Unhealthy, s.Health.Omitted = rollout.PhaseProgressing, nil, 52, 50
	out, _ := followStatus(t, statusCluster(t, data, decided(1, &s)), false)
	expectLines(t, out, "unhealthy: 52 reached nodes, judged by a health gate spec.strategy no longer has",
		"unhealthy node worker-0", "unhealthy nodes not listed: 50 more (the status lists the first 2 by name)\n",
		"paused: no")
	if strings.Contains(out, "health gate:") {
		t.Errorf("a key without a gate shows one:\n%s", out)
	}
}

// Nodes seen unhealthy before the rollout wrote them are listed, as the
// status holds them, apart from the verdicts: the gate does not count them.
func TestRolloutStatusUnhealthyBeforeTheirWrite(t *testing.T) {
	data := gateData(false, `{"maxUnhealthyNodes": 0}`)
	s := halted(data, "0", nil)
	s.Phase, s.NextStep, s.Health.HaltedAt, s.Health.HaltedKey = rollout.PhaseProgressing, mt(stepAt.Add(time.Minute)),
		nil, ""
	s.Health.Before = 3
	s.Health.BeforeNodes = []nodeslov1alpha1.NodeVerdict{{Name: worker0, Signal: "Ready=False since 2026-11-30T15:00:00Z"},
		{Name: worker1, Signal: "DiskPressure=True since 2026-11-30T15:30:00Z"}}
	out, err := followStatus(t, statusCluster(t, data, decided(1, &s)), false)
	expectPrintedOnce(t, err)
	expectLines(t, out,
		"paused: no\nunhealthy before their write: 3 nodes, not held against the change and not used as canaries\n"+
			"unhealthy before its write, node worker-0: Ready=False since 2026-11-30T15:00:00Z\n"+
			"unhealthy before its write, node worker-1: DiskPressure=True since 2026-11-30T15:30:00Z\n"+
			"unhealthy before their write, not listed: 1 more\nnext step: ")
	if strings.Contains(out, "unhealthy: ") || strings.Contains(out, "halted:") {
		t.Errorf("nodes unhealthy before their write were taken for verdicts:\n%s", out)
	}
}

// The ConfigMap's data halted before and withheld since (applied again by
// a GitOps self-heal): the wait ends on it with exit status 1, as on a
// halt, even though the configuration in force completed.
func TestRolloutStatusEndsOnDataWithheld(t *testing.T) {
	good, bad := statusData(50, false), statusData(40, false)
	s := withheldStatus(good, bad)
	c := statusCluster(t, bad, decided(3, &s))
	for _, watch := range []bool{false, true} {
		// The timeout only bounds a wait that would not end.
		out, err := followStatusFor(t, c, statusFollow{watch: watch, timeout: time.Minute})
		expectFailed(t, err, "error: configuration "+
			rollout.ShortTarget(s.Withheld.Configuration)+", the ConfigMap's data, was halted by the health gate "+
			"and is not in force\n")
		expectLines(t, out, "not in force: the ConfigMap's data")
	}
}

// withheldStatus is the status of good's completed rollout while the
// ConfigMap's data is bad, halted at revision 2 and withheld since.
func withheldStatus(good, bad map[string]string) apiStatus {
	s := midRollout(good)
	s.Phase, s.Step, s.Reached, s.Pending, s.NextStep, s.Completed =
		rollout.PhaseCompleted, 3, 5, 0, nil, mt(stepAt.Add(2*time.Minute))
	s.Withheld = &nodeslov1alpha1.WithheldConfiguration{Configuration: sloconfig.Load(bad, nil).Fingerprint(), Revision: 2,
		HaltedAt: mt(stepAt), Summary: "worker-0 (Ready=False since 17:00:00)"}
	return s
}

// cutProgress splits what the watch printed into its progress lines and
// the whole status printed at the end.
func cutProgress(out string) (progress []string, block string) {
	for strings.HasPrefix(out, "Waiting for ") {
		line, rest, _ := strings.Cut(out, "\n")
		progress = append(progress, line)
		out = rest
	}
	return progress, out
}

// -o json prints the status as a structure when the wait ends, and the
// progress lines on their own stream, so that stdout parses.
func TestRolloutStatusOutput(t *testing.T) {
	data := statusData(40, false)
	s := midRollout(data)
	s.Paused = true
	c := statusCluster(t, data, decided(1, &s))
	var out, progress bytes.Buffer
	opts := statusFollow{watch: true, timeout: 50 * time.Millisecond,
		output: outputFormat{form: outputJSON}, progress: &progress}
	err := followRollout(context.Background(), &readEveryTime{c: c}, &out, opts)
	if !errors.Is(err, errTimedOut) {
		t.Fatalf("error %v, want the timeout", err)
	}
	want := "Waiting for rollout of configuration " + rollout.ShortTarget(s.Configuration) +
		": 3 of 5 nodes reached, step 2 of 3 (paused)...\n"
	if progress.String() != want {
		t.Errorf("progress %q, want %q", progress.String(), want)
	}
	var got RolloutStatusOutput
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v:\n%s", err, out.String())
	}
	if !got.TakenUp || got.Done || got.Halted || got.RevisionInForce != 1 || got.Status == nil ||
		got.Status.Reached != 3 || !got.Status.Paused || got.ConfigMap != statusKey.String() ||
		got.Configuration != rollout.ShortTarget(s.Configuration) || !got.NodeSLORolloutExists ||
		got.ConfigMapResourceVersion != fakeConfigMapVersion || got.ObservedConfigMapVersion != fakeConfigMapVersion ||
		got.Generation != 1 || got.ObservedGeneration != 1 {
		t.Errorf("got\n%s", out.String())
	}
}

// Not taken up, -o json says so, and names no configuration of the
// ConfigMap's data: the plugin does not fingerprint it.
func TestRolloutStatusOutputNotTakenUp(t *testing.T) {
	data := statusData(40, false)
	s := midRollout(data)
	obj := decided(1, &s)
	obj.Status.ObservedConfigMapVersion = "998"
	var out bytes.Buffer
	err := followRollout(context.Background(), &readEveryTime{c: statusCluster(t, data, obj)}, &out,
		statusFollow{output: outputFormat{form: outputJSON}})
	if err != nil {
		t.Fatal(err)
	}
	var got RolloutStatusOutput
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v:\n%s", err, out.String())
	}
	if got.TakenUp || got.Done || got.Configuration != "" || got.ObservedConfigMapVersion != "998" || got.Status == nil {
		t.Errorf("got\n%s", out.String())
	}
}

// While the ConfigMap's data is withheld, rollout status is about it (the
// controller took it up), says it is not in force, why and how to retry,
// and is not done even when the configuration in force completed.
func TestRolloutStatusSaysTheDataIsNotInForce(t *testing.T) {
	good, bad := statusData(50, false), statusData(40, false)
	s := withheldStatus(good, bad)
	s.Withheld.Reverted = true
	st, err := FetchRolloutStatus(context.Background(), statusCluster(t, bad, decided(3, &s)), statusKey)
	if err != nil {
		t.Fatal(err)
	}
	if !st.TakenUp() || st.Done() || st.Configuration() != s.Withheld.Configuration {
		t.Errorf("taken up %t, done %t, configuration %s", st.TakenUp(), st.Done(), st.Configuration())
	}
	var out bytes.Buffer
	st.Write(&out)
	expectLines(t, out.String(),
		"not in force: the ConfigMap's data, configuration "+rollout.ShortTarget(s.Withheld.Configuration)+
			", halted by the health gate at revision 2 at 2026-11-30T17:00:00Z (worker-0 (Ready=False since 17:00:00)); "+
			"the previous revision's configuration, "+rollout.ShortTarget(s.Configuration)+
			", is in force in its place (onUnhealthy: revert); no NodeSLO is written for it, however often it is applied again",
		"retry: kubectl nodeslo rollout retry (rolls it out again, canaries first); or change the ConfigMap")
}

// --interval, the pace of the poll before the watch, is still taken, so
// that a script giving it goes on working, and said to be ignored.
func TestRolloutStatusIntervalIsIgnored(t *testing.T) {
	code, stdout, stderr := run(t, "", rolloutCmd, statusCmd, "--interval", "5s",
		kubeconfigFlag, filepath.Join(t.TempDir(), "none"))
	want := "warning: --interval is ignored: rollout status follows a watch, and sees a change as soon as the " +
		"apiserver sends it\nerror: loading the kubeconfig: "
	if code != ExitError || stdout != "" || !strings.HasPrefix(stderr, want) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	help := NewRootCommand(IOStreams{})
	status, _, err := help.Find([]string{rolloutCmd, statusCmd})
	if err != nil || !status.Flags().Lookup(intervalFlag).Hidden {
		t.Errorf("--interval is shown in the help: %v", err)
	}
}

// apiStatus is the NodeSLORollout's status, as the controller writes it.
type apiStatus = nodeslov1alpha1.NodeSLORolloutStatus

// mt is t as a status time.
func mt(t time.Time) *metav1.Time { return &metav1.Time{Time: t} }
