package plugin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/api/scheme"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

var pauseRef = ConfigMapRef{Namespace: "koordinator-system", Name: "slo-controller-config"}

// phaseProgressing is the API's phase of a rollout in progress.
const phaseProgressing = rollout.PhaseProgressing

// pauseFixture is a cluster with the ConfigMap of data and objs besides
// (its NodeSLORollout, say); the NodeSLORollout's status is a subresource,
// as the CRD has it, so that a write of the object leaves it alone.
func pauseFixture(data map[string]string, objs ...client.Object) (client.Client, ConfigMapRef) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: pauseRef.Namespace, Name: pauseRef.Name}, Data: data}
	return fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(append(objs, cm)...).
		WithStatusSubresource(&nodeslov1alpha1.NodeSLORollout{}).Build(), pauseRef
}

// strategySpec is the spec of the NodeSLORollout that holds the policy of
// key, a value of the retired rollout key, as kubectl nodeslo rollout
// convert prints it: its fields spec.strategy, its "paused" spec.paused.
// Unlike convert, it does not check the strategy, so that a test may hold
// one the controller refuses; a field the strategy has not fails the test.
func strategySpec(t testing.TB, key string) nodeslov1alpha1.NodeSLORolloutSpec {
	t.Helper()
	spec, err := decodeStrategy(key)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

func decodeStrategy(key string) (nodeslov1alpha1.NodeSLORolloutSpec, error) {
	var policy struct {
		nodeslov1alpha1.RolloutStrategy
		Paused bool `json:"paused"`
	}
	decoder := json.NewDecoder(strings.NewReader(key))
	decoder.DisallowUnknownFields()
	if err := decoder.Decode(&policy); err != nil {
		return nodeslov1alpha1.NodeSLORolloutSpec{}, fmt.Errorf("the strategy of %s: %w", key, err)
	}
	return nodeslov1alpha1.NodeSLORolloutSpec{Strategy: &policy.RolloutStrategy, Paused: policy.Paused}, nil
}

// underStrategy moves the retired rollout key of data (the policy as the fixtures
// write it) to obj's spec (strategySpec) and returns the ConfigMap's data
// without the retired key.
func underStrategy(t testing.TB, data map[string]string, obj *nodeslov1alpha1.NodeSLORollout) map[string]string {
	t.Helper()
	key, ok := data[string(sloconfig.KeyRollout)]
	if !ok {
		t.Fatal("the data has no rollout key to move to spec.strategy")
	}
	moved := strategySpec(t, key)
	obj.Spec.Strategy, obj.Spec.Paused = moved.Strategy, obj.Spec.Paused || moved.Paused
	return withoutRolloutKey(data)
}

// withoutRolloutKey is data without the retired rollout key.
func withoutRolloutKey(data map[string]string) map[string]string {
	out := maps.Clone(data)
	delete(out, string(sloconfig.KeyRollout))
	return out
}

// rolloutObject is the NodeSLORollout of ref with spec and status.
func rolloutObject(ref ConfigMapRef, spec nodeslov1alpha1.NodeSLORolloutSpec,
	status nodeslov1alpha1.NodeSLORolloutStatus) *nodeslov1alpha1.NodeSLORollout {
	return &nodeslov1alpha1.NodeSLORollout{ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name},
		Spec: spec, Status: status}
}

// readRollout reads the NodeSLORollout of ref (nil: none).
func readRollout(t *testing.T, c client.Client, ref ConfigMapRef) *nodeslov1alpha1.NodeSLORollout {
	t.Helper()
	obj, err := getNodeSLORollout(context.Background(), c, ref)
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// noStrategy is the refusal of pause and resume without spec.strategy.
const noStrategy = "NodeSLORollout koordinator-system/slo-controller-config has no spec.strategy: " +
	"every change reaches every node at once, so there is no rollout to pause or resume"

// A pause sets spec.paused on the NodeSLORollout that holds the strategy,
// keeping the strategy; a second pause says so and writes nothing; a
// resume lifts it. The ConfigMap is not written.
func TestSetPausedWritesTheNodeSLORolloutsSpec(t *testing.T) {
	key := `{"maxNodesPerStep": "10%", "canary": {"nodeSelector": {"matchLabels": {"pool": "c"}}}}`
	spec := strategySpec(t, key)
	c, ref := pauseFixture(map[string]string{threshold: "unchanged"},
		rolloutObject(pauseRef, spec, nodeslov1alpha1.NodeSLORolloutStatus{}))
	before := readConfigMap(t, c, ref)
	var out bytes.Buffer
	if err := SetPaused(context.Background(), c, ref, true, &out); err != nil {
		t.Fatal(err)
	}
	if obj := readRollout(t, c, ref); obj == nil || !obj.Spec.Paused || obj.Spec.Resume != nil || obj.Spec.Retry != nil ||
		!reflect.DeepEqual(obj.Spec.Strategy, spec.Strategy) {
		t.Fatalf("after pause: %+v", obj)
	}
	expectLines(t, out.String(), "rollout paused: spec.paused set on NodeSLORollout "+
		"koordinator-system/slo-controller-config: no further node is reached until kubectl nodeslo rollout resume")
	if cm := readConfigMap(t, c, ref); cm.ResourceVersion != before.ResourceVersion ||
		!maps.Equal(cm.Data, map[string]string{threshold: "unchanged"}) || len(cm.Annotations) != 0 {
		t.Errorf("the ConfigMap changed: %+v", cm)
	}

	out.Reset()
	rv := readRollout(t, c, ref).ResourceVersion
	if err := SetPaused(context.Background(), c, ref, true, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "paused already (spec.paused: true); nothing written") ||
		readRollout(t, c, ref).ResourceVersion != rv {
		t.Errorf("pausing twice: %q", out.String())
	}

	out.Reset()
	if err := SetPaused(context.Background(), c, ref, false, &out); err != nil {
		t.Fatal(err)
	}
	if obj := readRollout(t, c, ref); obj.Spec.Paused || !reflect.DeepEqual(obj.Spec.Strategy, spec.Strategy) {
		t.Errorf("after resume: %+v", obj.Spec)
	}
	expectLines(t, out.String(), "rollout resumed: spec.paused set to false on NodeSLORollout "+
		"koordinator-system/slo-controller-config: the rollout goes on where it stopped")
	out.Reset()
	if err := SetPaused(context.Background(), c, ref, false, &out); err != nil ||
		!strings.Contains(out.String(), "resumed already (spec.paused is not set); nothing written") {
		t.Errorf("resuming twice: %v, %q", err, out.String())
	}
	if cm := readConfigMap(t, c, ref); cm.ResourceVersion != before.ResourceVersion {
		t.Errorf("the ConfigMap changed: %+v", cm)
	}
}

// The pause goes into the NodeSLORollout the controller writes the status
// of, keeping its status and the rest of its spec.
func TestSetPausedKeepsTheControllersStatus(t *testing.T) {
	status := nodeslov1alpha1.NodeSLORolloutStatus{Phase: phaseProgressing, Revision: 4,
		RolloutRecord: &nodeslov1alpha1.RolloutRecord{Target: "x", Started: "2026-12-01T12:00:00Z"}}
	c, ref := pauseFixture(map[string]string{},
		rolloutObject(pauseRef, strategySpec(t, `{}`), status))
	if err := SetPaused(context.Background(), c, ref, true, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	obj := readRollout(t, c, ref)
	if !obj.Spec.Paused || obj.Spec.Strategy == nil || obj.Status.Revision != 4 ||
		!equality.Semantic.DeepEqual(obj.Status.RolloutRecord, status.RolloutRecord) {
		t.Errorf("after pause: spec %+v, status %+v", obj.Spec, obj.Status)
	}
}

// Without spec.strategy there is nothing to pause or resume, whether there
// is no NodeSLORollout or one without a strategy: nothing is written, no
// NodeSLORollout created. An invalid strategy is not lifted by resume,
// which writes only spec.paused: it says what holds the rollout, and with
// spec.paused not set that is an error. An invalid strategy does not stop
// a pause.
func TestSetPausedRefusals(t *testing.T) {
	for _, paused := range []bool{true, false} {
		c, ref := pauseFixture(map[string]string{threshold: "{}"})
		err := SetPaused(context.Background(), c, ref, paused, &bytes.Buffer{})
		if err == nil || err.Error() != noStrategy {
			t.Errorf("no NodeSLORollout, paused %t: %v", paused, err)
		}
		if readRollout(t, c, ref) != nil {
			t.Error("a NodeSLORollout was created")
		}

		c, ref = pauseFixture(map[string]string{threshold: "{}"},
			rolloutObject(pauseRef, nodeslov1alpha1.NodeSLORolloutSpec{}, nodeslov1alpha1.NodeSLORolloutStatus{}))
		rv := readRollout(t, c, ref).ResourceVersion
		err = SetPaused(context.Background(), c, ref, paused, &bytes.Buffer{})
		if err == nil || err.Error() != noStrategy {
			t.Errorf("no spec.strategy, paused %t: %v", paused, err)
		}
		if readRollout(t, c, ref).ResourceVersion != rv {
			t.Error("the NodeSLORollout was written")
		}
	}

	const invalidHolds = "spec.strategy is invalid, which holds every rollout until it is fixed " +
		"(kubectl describe nodeslorollout shows the InvalidStrategy Event)"
	c, ref := pauseFixture(map[string]string{threshold: "{}"},
		rolloutObject(pauseRef, strategySpec(t, invalidRolloutKey), nodeslov1alpha1.NodeSLORolloutStatus{}))
	rv := readRollout(t, c, ref).ResourceVersion
	err := SetPaused(context.Background(), c, ref, false, &bytes.Buffer{})
	if err == nil || err.Error() != "NodeSLORollout koordinator-system/slo-controller-config: "+invalidHolds+
		"; spec.paused is not set; nothing written" {
		t.Errorf("resume of a rollout an invalid strategy holds: %v", err)
	}
	if readRollout(t, c, ref).ResourceVersion != rv {
		t.Error("the NodeSLORollout was written")
	}
	var out bytes.Buffer
	if err := SetPaused(context.Background(), c, ref, true, &out); err != nil || !readRollout(t, c, ref).Spec.Paused {
		t.Fatalf("pause with an invalid strategy: %v", err)
	}
	out.Reset()
	if err := SetPaused(context.Background(), c, ref, false, &out); err != nil {
		t.Fatal(err)
	}
	if readRollout(t, c, ref).Spec.Paused {
		t.Error("resume left spec.paused set")
	}
	expectLines(t, out.String(), "spec.paused set to false on NodeSLORollout koordinator-system/slo-controller-config; "+
		"the rollout stays held: "+invalidHolds+"\n")
}

// A pause left from before spec.strategy was removed is lifted by resume:
// it would otherwise hold the next rollout once a strategy comes back.
func TestResumeLiftsAPauseLeftWithoutAStrategy(t *testing.T) {
	c, ref := pauseFixture(map[string]string{threshold: "{}"},
		rolloutObject(pauseRef, nodeslov1alpha1.NodeSLORolloutSpec{Paused: true}, nodeslov1alpha1.NodeSLORolloutStatus{}))
	var out bytes.Buffer
	if err := SetPaused(context.Background(), c, ref, false, &out); err != nil {
		t.Fatal(err)
	}
	if spec := readRollout(t, c, ref).Spec; spec.Paused || spec.Strategy != nil {
		t.Errorf("spec after the resume: %+v", spec)
	}
	expectLines(t, out.String(), "spec.paused set to false on NodeSLORollout koordinator-system/slo-controller-config: "+
		"it has no spec.strategy, so it held no rollout, but it would have paused the next one\n")
}

// A NodeSLORollout deleted between the read of pause and its write (its
// strategy with it) is not created again, which would leave a pause
// without a strategy: the write is a patch, and fails.
func TestSetPausedAfterTheNodeSLORolloutWasDeletedMeanwhile(t *testing.T) {
	c, ref := pauseFixture(map[string]string{}, rolloutObject(pauseRef, strategySpec(t, `{}`),
		nodeslov1alpha1.NodeSLORolloutStatus{Phase: phaseProgressing, Revision: 2}))
	racing := &deletedMeanwhile{Client: c}
	err := SetPaused(context.Background(), racing, ref, true, &bytes.Buffer{})
	if !racing.deleted || err == nil || !apierrors.IsNotFound(err) ||
		!strings.HasPrefix(err.Error(), "writing the spec of NodeSLORollout koordinator-system/slo-controller-config: ") {
		t.Errorf("deleted %t, error %v", racing.deleted, err)
	}
	if obj := readRollout(t, c, ref); obj != nil {
		t.Errorf("the NodeSLORollout was created again: %+v", obj)
	}
}

// deletedMeanwhile stands for whoever deletes the NodeSLORollout between
// the plugin's read and its write; a create fails the test.
type deletedMeanwhile struct {
	client.Client
	deleted bool
}

func (c *deletedMeanwhile) Patch(ctx context.Context, obj client.Object, patch client.Patch,
	opts ...client.PatchOption) error {
	if _, ok := obj.(*nodeslov1alpha1.NodeSLORollout); ok && !c.deleted {
		c.deleted = true
		if err := c.Delete(ctx, obj.DeepCopyObject().(client.Object)); err != nil {
			return err
		}
	}
	return c.Client.Patch(ctx, obj, patch, opts...)
}

func (c *deletedMeanwhile) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	return fmt.Errorf("a create of %T", obj)
}
