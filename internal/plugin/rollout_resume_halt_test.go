package plugin

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
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

// twoNodesPerStep is a strategy's policy: 2 nodes a step, no canary, no gate.
const twoNodesPerStep = `{"maxNodesPerStep": 2}`

// haltedAt is when the health gate halted the rollouts of these tests.
var haltedAt = time.Date(2026, 12, 2, 18, 36, 18, 250e6, time.UTC)

// haltFixture is a ConfigMap and the NodeSLORollout with spec, its
// strategy the policy of key (strategySpec), as the controller left it when
// the health gate halted the rollout of the ConfigMap's configuration at
// haltedAt, with two unhealthy nodes: the record in status.rolloutRecord, the
// halt's time in status.health.haltedAt.
func haltFixture(t *testing.T, key string, spec nodeslov1alpha1.NodeSLORolloutSpec) (client.Client, ConfigMapRef) {
	t.Helper()
	obj := rolloutObject(pauseRef, spec, nodeslov1alpha1.NodeSLORolloutStatus{})
	data := underStrategy(t, map[string]string{string(sloconfig.KeyRollout): key,
		threshold: `{"clusterStrategy": {"enable": true}}`}, obj)
	rec := rollout.Record{Target: sloconfig.Load(data, nil).Fingerprint(), Started: haltedAt.Add(-time.Hour),
		Pending: 5, Steps: 1, Health: &rollout.HealthRecord{Unhealthy: twoUnhealthy, HaltedAt: haltedAt,
			HaltedKey: keyOf(map[string]string{string(sloconfig.KeyRollout): key})}}
	obj.Status = recordStatus(rec)
	return pauseFixture(data, obj)
}

// statusRecord is rec as the controller's status holds it: the API type
// has the record's JSON shape.
func statusRecord(rec rollout.Record) *nodeslov1alpha1.RolloutRecord {
	api := &nodeslov1alpha1.RolloutRecord{}
	if err := json.Unmarshal([]byte(rec.Encode()), api); err != nil {
		panic(err)
	}
	return api
}

// recordStatus is the status the controller writes with rec: the record,
// and the halt's time (to the second, as the API keeps it).
func recordStatus(rec rollout.Record) nodeslov1alpha1.NodeSLORolloutStatus {
	s := nodeslov1alpha1.NodeSLORolloutStatus{Phase: phaseProgressing, Configuration: rec.Target,
		RolloutRecord: statusRecord(rec)}
	if rec.Health.Halted() {
		s.Phase = rollout.PhaseHalted
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
// lifts spec.paused; neither spec.strategy nor the ConfigMap is written.
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
			strategy := readRollout(t, c, ref).Spec.Strategy
			var out bytes.Buffer
			if err := SetPaused(context.Background(), c, ref, false, &out); err != nil {
				t.Fatal(err)
			}
			spec := readRollout(t, c, ref).Spec
			if spec.Paused || spec.Strategy == nil || !reflect.DeepEqual(spec.Strategy, strategy) ||
				spec.Resume == nil || spec.Resume.Configuration != "" ||
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
	key := twoNodesPerStep
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
	key := twoNodesPerStep
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
	c, ref = pauseFixture(map[string]string{}, rolloutObject(pauseRef, strategySpec(t, key), recordStatus(rec)))
	out.Reset()
	if err := SetPaused(context.Background(), c, ref, false, &out); err != nil {
		t.Fatal(err)
	}
	if readRollout(t, c, ref).Spec.Resume != nil {
		t.Error("spec.resume was written")
	}
	expectLines(t, out.String(), "resumed already (spec.paused is not set)")
}

// An invalid strategy holds the rollout whatever spec.paused says: resume
// names spec.strategy and where its problem is told, and writes nothing,
// spec.paused set or not. Pause after a halt sets spec.paused as without a
// gate.
func TestResumeAfterAHaltHeldByAnInvalidStrategyAndPause(t *testing.T) {
	for _, spec := range []nodeslov1alpha1.NodeSLORolloutSpec{{}, {Paused: true}} {
		c, ref := haltFixture(t, invalidRolloutKey, spec)
		rv := readRollout(t, c, ref).ResourceVersion
		err := SetPaused(context.Background(), c, ref, false, &bytes.Buffer{})
		if err == nil || !strings.HasPrefix(err.Error(), "NodeSLORollout koordinator-system/slo-controller-config: "+
			"spec.strategy is invalid, which holds every rollout; ") ||
			!strings.Contains(err.Error(), "kubectl describe nodeslorollout") ||
			!strings.HasSuffix(err.Error(), "; nothing written") {
			t.Errorf("resume with an invalid strategy, paused %t: %v", spec.Paused, err)
		}
		if obj := readRollout(t, c, ref); obj.ResourceVersion != rv || obj.Spec.Resume != nil ||
			obj.Spec.Paused != spec.Paused {
			t.Errorf("the NodeSLORollout was written: %+v", obj.Spec)
		}
	}

	c, ref := haltFixture(t, twoNodesPerStep, nodeslov1alpha1.NodeSLORolloutSpec{})
	if err := SetPaused(context.Background(), c, ref, true, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if spec := readRollout(t, c, ref).Spec; !spec.Paused || spec.Resume != nil {
		t.Errorf("pause after a halt: %+v", spec)
	}
}
