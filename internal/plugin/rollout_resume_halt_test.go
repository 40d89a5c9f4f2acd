package plugin

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// haltedAt is when the health gate halted the rollouts of these tests.
var haltedAt = time.Date(2026, 12, 2, 18, 36, 18, 250e6, time.UTC)

// haltFixture is a ConfigMap with the rollout key as given and the
// NodeSLORollout the controller left when the health gate halted the
// rollout of its configuration at haltedAt, with two unhealthy nodes: the
// record in status.record, the halt's time in status.health.haltedAt.
func haltFixture(t *testing.T, key string, spec nodeslov1alpha1.NodeSLORolloutSpec) (client.Client, ConfigMapRef) {
	t.Helper()
	data := map[string]string{string(sloconfig.KeyRollout): key, threshold: `{"clusterStrategy": {"enable": true}}`}
	rec := rollout.Record{Target: sloconfig.Load(data, nil).Fingerprint(), Started: haltedAt.Add(-time.Hour),
		Pending: 5, Steps: 1, Health: &rollout.HealthRecord{Unhealthy: twoUnhealthy, HaltedAt: haltedAt,
			HaltedKey: rollout.KeyFingerprint(key)}}
	return pauseFixture(data, rolloutObject(pauseRef, spec, recordStatus(rec)))
}

// recordStatus is the status the controller writes with rec: the record,
// and the halt's time (to the second, as the API keeps it).
func recordStatus(rec rollout.Record) nodeslov1alpha1.NodeSLORolloutStatus {
	s := nodeslov1alpha1.NodeSLORolloutStatus{Phase: phaseProgressing, Configuration: rec.Target, Record: rec.Encode()}
	if rec.Health.Halted() {
		s.Phase = nodeslov1alpha1.RolloutPhase(rollout.PhaseHalted)
		s.Health = &nodeslov1alpha1.RolloutHealth{Allowed: 1,
			HaltedAt: &metav1.Time{Time: rec.Health.HaltedAt.Truncate(time.Second)}}
	}
	return s
}

func readConfigMap(t *testing.T, c client.Client, ref ConfigMapRef) *corev1.ConfigMap {
	t.Helper()
	cm := &corev1.ConfigMap{}
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, cm); err != nil {
		t.Fatal(err)
	}
	return cm
}

// A resume after a halt names the halt in spec.resume, to the second, and
// lifts spec.paused, whatever the key says; the key is not written.
func TestResumeAfterAHaltNamesTheHalt(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec nodeslov1alpha1.NodeSLORolloutSpec
	}{
		{"not paused", nodeslov1alpha1.NodeSLORolloutSpec{}},
		{"paused", nodeslov1alpha1.NodeSLORolloutSpec{Paused: true}},
		{"an earlier halt resumed", nodeslov1alpha1.NodeSLORolloutSpec{Resume: haltReference("", haltedAt.Add(-time.Hour))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := `{"maxNodesPerStep": 2, "healthGate": {"maxUnhealthyNodes": 1}}`
			c, ref := haltFixture(t, key, tc.spec)
			before := readConfigMap(t, c, ref)
			var out bytes.Buffer
			if err := SetPaused(context.Background(), c, ref, false, &out); err != nil {
				t.Fatal(err)
			}
			spec := readRollout(t, c, ref).Spec
			if spec.Paused || spec.Resume == nil || spec.Resume.Configuration != "" ||
				!spec.Resume.HaltedAt.Equal(&metav1.Time{Time: haltedAt.Truncate(time.Second)}) {
				t.Errorf("spec after the resume: %+v", spec)
			}
			if after := readConfigMap(t, c, ref); after.ResourceVersion != before.ResourceVersion {
				t.Errorf("the ConfigMap was written: %+v", after)
			}
			expectLines(t, out.String(), "the rollout the health gate halted is resumed: spec.resume set on NodeSLORollout "+
				"koordinator-system/slo-controller-config to the halt at 2026-12-02T18:36:18Z, spec.paused false "+
				"(the ConfigMap is not written)",
				"the unhealthy nodes known (2: worker-0 (Ready=False since 17:00:10), "+
					"worker-2 (4 Pod evictions (4 containers terminated non-zero), at most 3 allowed)) are tolerated from now on")
			if strings.Contains(out.String(), "stays held") {
				t.Errorf("nothing holds the rollout: %q", out.String())
			}
		})
	}
}

// The halt's time comes from the record when the status does not say it.
func TestResumeAfterAHaltTakesItsTimeFromTheRecord(t *testing.T) {
	key := `{"maxNodesPerStep": 2}`
	c, ref := haltFixture(t, key, nodeslov1alpha1.NodeSLORolloutSpec{})
	obj := readRollout(t, c, ref)
	obj.Status.Health = nil
	if err := c.Status().Update(context.Background(), obj); err != nil {
		t.Fatal(err)
	}
	if err := SetPaused(context.Background(), c, ref, false, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if r := readRollout(t, c, ref).Spec.Resume; !sameSecond(r, haltedAt) {
		t.Errorf("spec.resume %+v, want the halt at %s", r, haltedAt)
	}
}

// A resume of this halt asked for already writes nothing. A halt of another
// configuration than the one in force is no halt to resume: resume behaves
// as without a gate.
func TestResumeWritesNothingWithoutAHaltToLift(t *testing.T) {
	key := `{"maxNodesPerStep": 2}`
	c, ref := haltFixture(t, key, nodeslov1alpha1.NodeSLORolloutSpec{Resume: haltReference("", haltedAt)})
	rv := readRollout(t, c, ref).ResourceVersion
	var out bytes.Buffer
	if err := SetPaused(context.Background(), c, ref, false, &out); err != nil {
		t.Fatal(err)
	}
	if readRollout(t, c, ref).ResourceVersion != rv {
		t.Error("the NodeSLORollout was written")
	}
	expectLines(t, out.String(), "a resume of the health gate's halt at 2026-12-02T18:36:18Z is asked for already "+
		"(spec.resume); the controller takes it up at its next decision; nothing written")

	rec := rollout.Record{Target: "another configuration",
		Health: &rollout.HealthRecord{Unhealthy: twoUnhealthy, HaltedAt: haltedAt, HaltedKey: rollout.KeyFingerprint(key)}}
	c, ref = pauseFixture(map[string]string{string(sloconfig.KeyRollout): key},
		rolloutObject(pauseRef, nodeslov1alpha1.NodeSLORolloutSpec{}, recordStatus(rec)))
	out.Reset()
	if err := SetPaused(context.Background(), c, ref, false, &out); err != nil {
		t.Fatal(err)
	}
	if readRollout(t, c, ref).Spec.Resume != nil {
		t.Error("spec.resume was written")
	}
	expectLines(t, out.String(), "resumed already (spec.paused is not set)")
}

// An invalid key holds the rollout whatever the spec says: resume names
// the key and what to do, and writes nothing. A key that pauses still
// holds the resumed rollout: resume writes the spec and says so. Pause
// after a halt sets spec.paused as without a gate.
func TestResumeAfterAHaltHeldByTheKeyAndPause(t *testing.T) {
	c, ref := haltFixture(t, invalidRolloutKey, nodeslov1alpha1.NodeSLORolloutSpec{})
	err := SetPaused(context.Background(), c, ref, false, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "nodeslo-rollout-config is invalid") ||
		!strings.Contains(err.Error(), "kubectl nodeslo validate") {
		t.Errorf("resume with an invalid key: %v", err)
	}
	if readRollout(t, c, ref).Spec.Resume != nil {
		t.Error("spec.resume was written")
	}

	c, ref = haltFixture(t, `{"maxNodesPerStep": 2, "paused": true}`, nodeslov1alpha1.NodeSLORolloutSpec{})
	var out bytes.Buffer
	if err := SetPaused(context.Background(), c, ref, false, &out); err != nil {
		t.Fatal(err)
	}
	if !sameSecond(readRollout(t, c, ref).Spec.Resume, haltedAt) {
		t.Error("spec.resume was not written")
	}
	expectLines(t, out.String(),
		`; the rollout stays held: "paused": true in nodeslo-rollout-config pauses the rollout too`)

	c, ref = haltFixture(t, `{"maxNodesPerStep": 2}`, nodeslov1alpha1.NodeSLORolloutSpec{})
	if err := SetPaused(context.Background(), c, ref, true, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if spec := readRollout(t, c, ref).Spec; !spec.Paused || spec.Resume != nil {
		t.Errorf("pause after a halt: %+v", spec)
	}
}
