package plugin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/nodeslo/nodeslo-controller/api/scheme"
	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

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

// statusCluster is 5 nodes (one canary) of which the first reached have
// the spec of data, the others the spec of threshold 50, and the
// ConfigMap with data and rec.
func statusCluster(t *testing.T, data map[string]string, reached int, rec rollout.Record) client.Reader {
	t.Helper()
	cfg, old := sloconfig.Load(data, nil), sloconfig.Load(statusData(50, false), nil)
	objs := make([]client.Object, 0, 11)
	objs = append(objs, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: sloconfig.DefaultConfigMapNamespace, Name: sloconfig.DefaultConfigMapName,
			Annotations: map[string]string{rollout.RecordAnnotation: rec.Encode()},
		},
		Data: data,
	})
	for i := range 5 {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("worker-%d", i)}}
		if i == 0 {
			node.Labels = map[string]string{"pool": "canary"}
		}
		from := old
		if i < reached {
			from = cfg
		}
		spec := from.Resolve(sloconfig.Node{Name: node.Name, Labels: node.Labels}, nil).Spec
		objs = append(objs, node,
			&slov1alpha1.NodeSLO{ObjectMeta: metav1.ObjectMeta{Name: node.Name}, Spec: *spec.DeepCopy()})
	}
	return fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objs...).Build()
}

var statusKey = client.ObjectKey{Namespace: sloconfig.DefaultConfigMapNamespace, Name: sloconfig.DefaultConfigMapName}

func followStatus(t *testing.T, c client.Reader, watch bool) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := followRollout(context.Background(), c, statusKey, IOStreams{Out: &out}, watch, time.Millisecond)
	return out.String(), err
}

func TestRolloutStatusMidRollout(t *testing.T) {
	data := statusData(40, false)
	stepAt := time.Date(2026, 11, 30, 17, 0, 0, 0, time.UTC)
	rec := rollout.Record{Target: sloconfig.Load(data, nil).Fingerprint(), Started: stepAt.Add(-time.Hour),
		Pending: 5, Canaries: 1, Steps: 2, StepAt: stepAt}
	out, err := followStatus(t, statusCluster(t, data, 3, rec), false)
	var exit exitError
	if !errors.As(err, &exit) || exit.code != ExitPending {
		t.Errorf("error %v, want exit status %d", err, ExitPending)
	}
	expectLines(t, out,
		"step 2 of 3 (step size 2), started 2026-11-30T16:00:00Z",
		"reached: 3 of 5 nodes",
		"pending: 2 nodes (0 canaries)",
		"paused: no",
		"next step: 2026-11-30T17:01:00Z")
}

func TestRolloutStatusPausedCanaryPending(t *testing.T) {
	data := statusData(40, true)
	rec := rollout.Record{Target: sloconfig.Load(data, nil).Fingerprint(), Started: time.Now(), Pending: 5, Canaries: 1}
	out, err := followStatus(t, statusCluster(t, data, 0, rec), false)
	if err == nil {
		t.Error("exit 0 while nodes are pending")
	}
	expectLines(t, out, "step 0 of 3", "reached: 0 of 5 nodes", "pending: 5 nodes (1 canaries)",
		"paused: yes (paused: true)")
	if bytes.Contains([]byte(out), []byte("next step")) {
		t.Errorf("a paused rollout has no next step:\n%s", out)
	}
}

func TestRolloutStatusCompleteExitsZero(t *testing.T) {
	data := statusData(40, false)
	rec := rollout.Record{Target: sloconfig.Load(data, nil).Fingerprint(), Pending: 5, Canaries: 1, Steps: 3, Done: true}
	for _, watch := range []bool{false, true} {
		out, err := followStatus(t, statusCluster(t, data, 5, rec), watch)
		if err != nil {
			t.Errorf("watch %t: %v", watch, err)
		}
		expectLines(t, out, "reached: 5 of 5 nodes", "pending: 0 nodes (0 canaries)", "complete: all 5 nodes")
	}
}

func TestRolloutStatusBeforeTheControllerStarts(t *testing.T) {
	data := statusData(40, false)
	out, _ := followStatus(t, statusCluster(t, data, 0, rollout.Record{Target: "older"}), false)
	expectLines(t, out, "the controller has not started its rollout yet", "pending: 5 nodes (1 canaries)")
}

func TestRolloutStatusInvalidKeyHolds(t *testing.T) {
	data := statusData(40, false)
	data[string(sloconfig.KeyRollout)] = invalidRolloutKey
	rec := rollout.Record{Target: sloconfig.Load(data, nil).Fingerprint(), Started: time.Now(), Pending: 5}
	out, err := followStatus(t, statusCluster(t, data, 0, rec), false)
	if err == nil {
		t.Error("exit 0 while nodes are pending")
	}
	expectLines(t, out, "error: nodeslo-rollout-config: maxNodesPerStep", "held until the rollout key is valid",
		"pending: 5 nodes", "paused: yes (the rollout key is invalid)")
	if strings.Contains(out, "next step") || strings.Contains(out, "of 0") {
		t.Errorf("an invalid key has no schedule:\n%s", out)
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

// invalidRolloutKey is a rollout key that fails validation.
const invalidRolloutKey = `{"maxNodesPerStep": 0}`

// haltedRecord is a record of data's rollout after the canary step and one
// batch (3 of 5 nodes reached), with the health gate's verdicts and, when
// halted, its halt under data's rollout key.
func haltedRecord(data map[string]string, halted bool, unhealthy map[string]string) rollout.Record {
	stepAt := time.Date(2026, 11, 30, 17, 0, 0, 0, time.UTC)
	h := &rollout.HealthRecord{Unhealthy: unhealthy}
	if halted {
		h.HaltedAt, h.HaltedKey = stepAt.Add(30*time.Second), rollout.KeyFingerprint(data[string(sloconfig.KeyRollout)])
	}
	return rollout.Record{Target: sloconfig.Load(data, nil).Fingerprint(), Started: stepAt.Add(-time.Hour),
		Pending: 5, Canaries: 1, Steps: 2, StepAt: stepAt, Health: h}
}

var twoUnhealthy = map[string]string{
	"worker-0": "Ready=False since 17:00:10",
	"worker-2": "4 evictPodSuccess Events, at most 3 allowed",
}

func TestRolloutStatusHaltedByTheGate(t *testing.T) {
	data := gateData(false, `{"maxUnhealthyNodes": 1}`)
	out, err := followStatus(t, statusCluster(t, data, 3, haltedRecord(data, true, twoUnhealthy)), false)
	var exit exitError
	if !errors.As(err, &exit) || exit.code != ExitPending {
		t.Errorf("error %v, want exit status %d", err, ExitPending)
	}
	// docs/kubectl-nodeslo.md#a-rollout-the-health-gate-halted shows this output.
	want := strings.Join([]string{
		"configuration 087183a7fa3d: step 2 of 3 (step size 2), started 2026-11-30T16:00:00Z",
		"reached: 3 of 5 nodes",
		"pending: 2 nodes (0 canaries)",
		"health gate: maxUnhealthyNodes 1; nodeConditions Ready, MemoryPressure, DiskPressure, PIDPressure; " +
			"evictions evictPodSuccess, maxPerNode 3; onUnhealthy pause",
		"paused: yes (halted by the health gate)",
		"halted: yes, by the health gate at 2026-11-30T17:00:30Z: 2 reached nodes unhealthy, more than the 1 allowed",
		"unhealthy node worker-0: Ready=False since 17:00:10",
		"unhealthy node worker-2: 4 evictPodSuccess Events, at most 3 allowed",
		"resume: kubectl nodeslo rollout resume (the unhealthy nodes above are tolerated from then on)",
		"undo: kubectl nodeslo rollout undo (puts the previous revision back)",
	}, "\n") + "\n"
	if out != want {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}
}

// A second halt after a resume counts only the nodes beyond those the
// resume tolerated, as the controller does, and lists every one.
func TestRolloutStatusHaltedAgainAfterAResume(t *testing.T) {
	data := gateData(false, `{"maxUnhealthyNodes": 1}`)
	rec := haltedRecord(data, true, map[string]string{"worker-0": "Ready=False since 17:00:10",
		worker1: "Ready=False since 17:20:00", "worker-2": "Ready=False since 17:21:00"})
	rec.Health.Tolerated = 1
	out, _ := followStatus(t, statusCluster(t, data, 3, rec), false)
	expectLines(t, out, "2 reached nodes unhealthy beyond the 1 a resume tolerated, more than the 1 allowed\n",
		"unhealthy node worker-0:", "unhealthy node worker-1:", "unhealthy node worker-2:")
}

func TestRolloutStatusHaltedAndPausedSaysBoth(t *testing.T) {
	data := gateData(true, `{"maxUnhealthyNodes": 1}`)
	out, _ := followStatus(t, statusCluster(t, data, 3, haltedRecord(data, true, twoUnhealthy)), false)
	expectLines(t, out, "paused: yes (halted by the health gate; paused: true)\n", "halted: yes")
}

// A percent is resolved over the nodes reached, as the controller resolves
// it over the nodes it judged: 10% of 3 allows none.
func TestRolloutStatusHaltedUnderAPercent(t *testing.T) {
	data := gateData(false, `{"maxUnhealthyNodes": "10%", "onUnhealthy": "revert"}`)
	rec := haltedRecord(data, true, map[string]string{worker1: "MemoryPressure=True since 17:00:20"})
	rec.Health.Revert = true
	out, _ := followStatus(t, statusCluster(t, data, 3, rec), false)
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

// A halt after the last node was reached (within the soak) is not a
// completed rollout: without --watch the exit status says so, and --watch
// goes on until a resume lifts the halt.
func TestRolloutStatusHaltAfterTheLastStepIsNotDone(t *testing.T) {
	data := gateData(false, `{"maxUnhealthyNodes": 1}`)
	halted := haltedRecord(data, true, twoUnhealthy)
	halted.Steps, halted.Done, halted.DoneAt = 3, true, halted.StepAt
	c := statusCluster(t, data, 5, halted)
	out, err := followStatus(t, c, false)
	var exit exitError
	if !errors.As(err, &exit) || exit.code != ExitPending {
		t.Errorf("error %v, want exit status %d", err, ExitPending)
	}
	expectLines(t, out, "pending: 0 nodes", "halted: yes")
	if strings.Contains(out, "complete:") {
		t.Errorf("a halted rollout says it is complete:\n%s", out)
	}

	resumed := halted
	resumed.Health = &rollout.HealthRecord{Unhealthy: twoUnhealthy, Tolerated: 2}
	reader := &resumeAfterReads{Reader: c, t: t, after: 3, record: resumed}
	out, err = followStatus(t, reader, true)
	if err != nil {
		t.Fatalf("--watch after the resume: %v", err)
	}
	if reader.reads < 3 {
		t.Errorf("--watch ended after %d reads of the ConfigMap, before the resume", reader.reads)
	}
	halt, after, found := strings.Cut(out, "\n---\n")
	if !found {
		t.Fatalf("--watch printed one status only:\n%s", out)
	}
	expectLines(t, halt, "halted: yes")
	expectLines(t, after, "paused: no", "unhealthy: 2 reached nodes, 2 of them tolerated by a resume; "+
		"beyond those, the gate halts on more than the 1 allowed\n", "complete: all 5 nodes")
}

// resumeAfterReads stands for the controller resuming a halted rollout: at
// the after-th read of the ConfigMap, its record becomes record.
type resumeAfterReads struct {
	client.Reader
	t      *testing.T
	after  int
	reads  int
	record rollout.Record
}

func (r *resumeAfterReads) Get(ctx context.Context, key client.ObjectKey, obj client.Object,
	opts ...client.GetOption) error {
	if _, ok := obj.(*corev1.ConfigMap); ok {
		if r.reads++; r.reads == r.after {
			cm := &corev1.ConfigMap{}
			if err := r.Reader.Get(ctx, key, cm); err != nil {
				r.t.Fatal(err)
			}
			cm.Annotations[rollout.RecordAnnotation] = r.record.Encode()
			if err := r.Reader.(client.Client).Update(ctx, cm); err != nil {
				r.t.Fatal(err)
			}
		}
	}
	return r.Reader.Get(ctx, key, obj, opts...)
}

func TestRolloutStatusVerdictsBelowTheLimit(t *testing.T) {
	data := gateData(false, `{"maxUnhealthyNodes": 1}`)
	rec := haltedRecord(data, false, map[string]string{worker1: "Ready=Unknown since 17:00:05"})
	out, _ := followStatus(t, statusCluster(t, data, 3, rec), false)
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

// After `rollout resume` changed the key, and before the controller took
// it up, the rollout is still halted, and the status says the resume is
// under way rather than asking for one.
func TestRolloutStatusResumeUnderWay(t *testing.T) {
	halt := gateData(false, `{"maxUnhealthyNodes": 1}`)
	data := gateData(false, `{"maxUnhealthyNodes": 1}`)
	data[string(sloconfig.KeyRollout)] += "\n"
	out, _ := followStatus(t, statusCluster(t, data, 3, haltedRecord(halt, true, twoUnhealthy)), false)
	expectLines(t, out, "paused: yes (halted by the health gate)", "halted: yes", "resume: under way")
	if strings.Contains(out, "resume: kubectl") {
		t.Errorf("a resume under way asks for a resume:\n%s", out)
	}
}

// A key without a gate prints no gate line; the verdicts of a gate the key
// no longer has are still listed.
func TestRolloutStatusGateRemoved(t *testing.T) {
	data := statusData(40, false)
	out, _ := followStatus(t, statusCluster(t, data, 3, haltedRecord(data, false, twoUnhealthy)), false)
	expectLines(t, out, "unhealthy: 2 reached nodes, judged by a health gate the rollout key no longer has",
		"unhealthy node worker-0", "paused: no")
	if strings.Contains(out, "health gate:") {
		t.Errorf("a key without a gate shows one:\n%s", out)
	}
}
