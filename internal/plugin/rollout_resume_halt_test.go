package plugin

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// haltFixture is a ConfigMap with the rollout key as given and a record of
// its configuration halted by the health gate under haltedKey (the rollout
// key's text at the halt), with two unhealthy nodes.
func haltFixture(t *testing.T, key, haltedKey string) (client.Client, ConfigMapRef) {
	t.Helper()
	data := map[string]string{string(sloconfig.KeyRollout): key, threshold: `{"clusterStrategy": {"enable": true}}`}
	c, ref := pauseFixture(data)
	rec := rollout.Record{Target: sloconfig.Load(data, nil).Fingerprint(), Started: time.Now(), Pending: 5, Steps: 1,
		Health: &rollout.HealthRecord{Unhealthy: twoUnhealthy, HaltedAt: time.Now(),
			HaltedKey: rollout.KeyFingerprint(haltedKey)}}
	setRecord(t, c, ref, rec)
	return c, ref
}

func setRecord(t *testing.T, c client.Client, ref ConfigMapRef, rec rollout.Record) {
	t.Helper()
	cm := readConfigMap(t, c, ref)
	cm.Annotations = map[string]string{rollout.RecordAnnotation: rec.Encode()}
	if err := c.Update(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
}

func readConfigMap(t *testing.T, c client.Client, ref ConfigMapRef) *corev1.ConfigMap {
	t.Helper()
	cm := &corev1.ConfigMap{}
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, cm); err != nil {
		t.Fatal(err)
	}
	return cm
}

// A resume after a halt changes the key's text whatever "paused" was, and
// leaves it valid, unpaused and otherwise as it was.
func TestResumeAfterAHaltChangesTheKey(t *testing.T) {
	for _, tc := range []struct {
		name, key  string
		wantPaused string // `"paused"` in the key written: "false" or "" (absent)
	}{
		{"paused absent", `{"maxNodesPerStep": 2, "healthGate": {"maxUnhealthyNodes": 1}}`, "false"},
		{"paused false", `{"maxNodesPerStep": 2, "paused": false, "healthGate": {"maxUnhealthyNodes": 1}}`, ""},
		{"paused true", `{"maxNodesPerStep": 2, "paused": true, "healthGate": {"maxUnhealthyNodes": 1}}`, "false"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, ref := haltFixture(t, tc.key, tc.key)
			var out bytes.Buffer
			if err := SetPaused(context.Background(), c, ref, false, &out); err != nil {
				t.Fatal(err)
			}
			cm := readConfigMap(t, c, ref)
			written := cm.Data[string(sloconfig.KeyRollout)]
			if rollout.KeyFingerprint(written) == rollout.KeyFingerprint(tc.key) {
				t.Fatalf("the key's text did not change: %q", written)
			}
			load := rollout.LoadKey(cm.Data)
			if !load.Valid() || load.Policy.Paused || load.Policy.HealthGate == nil || load.Policy.StepSize(10) != 2 {
				t.Errorf("the key after the resume: %q", written)
			}
			switch hasPaused := strings.Contains(written, `"paused"`); {
			case tc.wantPaused == "" && hasPaused:
				t.Errorf(`"paused" is still there: %q`, written)
			case tc.wantPaused != "" && !strings.Contains(written, `"paused": `+tc.wantPaused):
				t.Errorf(`want "paused": %s: %q`, tc.wantPaused, written)
			}
			if cm.Data[threshold] != `{"clusterStrategy": {"enable": true}}` {
				t.Errorf("another key changed: %q", cm.Data[threshold])
			}
			expectLines(t, out.String(), "the rollout the health gate halted is resumed",
				"the unhealthy nodes known (2: worker-0 (Ready=False since 17:00:10), "+
					"worker-2 (4 Pod evictions (4 containers terminated non-zero), at most 3 allowed)) are tolerated from now on")
		})
	}
}

// Paused, then resumed, after a halt: setting "paused" back to false could
// give back the very text of the halt, which would not resume it; the
// resume removes "paused" instead.
func TestResumeAfterAHaltNeverWritesTheHaltedText(t *testing.T) {
	atHalt := rolloutKeyText(map[string]any{"maxNodesPerStep": 2, "paused": false})
	paused := rolloutKeyText(map[string]any{"maxNodesPerStep": 2, "paused": true})
	c, ref := haltFixture(t, paused, atHalt)
	if err := SetPaused(context.Background(), c, ref, false, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	cm := readConfigMap(t, c, ref)
	written := cm.Data[string(sloconfig.KeyRollout)]
	if written == atHalt || strings.Contains(written, `"paused"`) || rollout.LoadKey(cm.Data).Policy.Paused {
		t.Errorf("the key after the resume: %q (at the halt: %q)", written, atHalt)
	}
}

// A key changed since the halt and not paused resumes it already: nothing
// is written. A halt of another configuration than the one in force is no
// halt to resume: resume behaves as without a gate.
func TestResumeWritesNothingWithoutAHaltToLift(t *testing.T) {
	key := `{"maxNodesPerStep": 2}`
	c, ref := haltFixture(t, key, `{"maxNodesPerStep": 1}`)
	var out bytes.Buffer
	if err := SetPaused(context.Background(), c, ref, false, &out); err != nil {
		t.Fatal(err)
	}
	if got := readConfigMap(t, c, ref).Data[string(sloconfig.KeyRollout)]; got != key {
		t.Errorf("the key was written: %q", got)
	}
	expectLines(t, out.String(), "changed since the health gate halted the rollout and is not paused", "nothing written")

	c, ref = haltFixture(t, key, key)
	rec := rollout.Record{Target: "another configuration",
		Health: &rollout.HealthRecord{Unhealthy: twoUnhealthy, HaltedAt: time.Now(), HaltedKey: rollout.KeyFingerprint(key)}}
	setRecord(t, c, ref, rec)
	out.Reset()
	if err := SetPaused(context.Background(), c, ref, false, &out); err != nil {
		t.Fatal(err)
	}
	if got := readConfigMap(t, c, ref).Data[string(sloconfig.KeyRollout)]; got != key {
		t.Errorf("the key was written: %q", got)
	}
	expectLines(t, out.String(), `resumed already ("paused": false)`)
}

// An invalid key holds the rollout whatever "paused" says: resume names
// the key and what to do, and writes nothing. Pause after a halt sets
// "paused": true as without a gate.
func TestResumeAfterAHaltWithAnInvalidKeyAndPause(t *testing.T) {
	key := invalidRolloutKey
	c, ref := haltFixture(t, key, key)
	err := SetPaused(context.Background(), c, ref, false, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "nodeslo-rollout-config is invalid") ||
		!strings.Contains(err.Error(), "kubectl nodeslo validate") {
		t.Errorf("resume with an invalid key: %v", err)
	}
	if got := readConfigMap(t, c, ref).Data[string(sloconfig.KeyRollout)]; got != key {
		t.Errorf("the key was written: %q", got)
	}

	key = `{"maxNodesPerStep": 2}`
	c, ref = haltFixture(t, key, key)
	if err := SetPaused(context.Background(), c, ref, true, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if load := rollout.LoadKey(readConfigMap(t, c, ref).Data); !load.Valid() || !load.Policy.Paused {
		t.Errorf("pause after a halt: %q", readConfigMap(t, c, ref).Data[string(sloconfig.KeyRollout)])
	}
}
