package plugin

import (
	"bytes"
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
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
const phaseProgressing = nodeslov1alpha1.RolloutPhase(rollout.PhaseProgressing)

// pauseFixture is a cluster with the ConfigMap of data and objs besides
// (its NodeSLORollout, say); the NodeSLORollout's status is a subresource,
// as the CRD has it, so that a write of the object leaves it alone.
func pauseFixture(data map[string]string, objs ...client.Object) (client.Client, ConfigMapRef) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: pauseRef.Namespace, Name: pauseRef.Name}, Data: data}
	return fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(append(objs, cm)...).
		WithStatusSubresource(&nodeslov1alpha1.NodeSLORollout{}).Build(), pauseRef
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

// A pause sets spec.paused on the NodeSLORollout, creating it when the
// controller has not yet; a second pause says so and writes nothing; a
// resume lifts it.
func TestSetPausedWritesTheNodeSLORolloutsSpec(t *testing.T) {
	key := `{"maxNodesPerStep": "10%", "canary": {"nodeSelector": {"matchLabels": {"pool": "c"}}}}`
	c, ref := pauseFixture(map[string]string{string(sloconfig.KeyRollout): key, threshold: "unchanged"})
	var out bytes.Buffer
	if err := SetPaused(context.Background(), c, ref, true, &out); err != nil {
		t.Fatal(err)
	}
	if obj := readRollout(t, c, ref); obj == nil || !obj.Spec.Paused || obj.Spec.Resume != nil || obj.Spec.Retry != nil {
		t.Fatalf("after pause: %+v", obj)
	}
	expectLines(t, out.String(), "rollout paused: spec.paused set on NodeSLORollout "+
		"koordinator-system/slo-controller-config (the ConfigMap is not written)")
	cm := readConfigMap(t, c, ref)
	if cm.Data[string(sloconfig.KeyRollout)] != key || cm.Data[threshold] != "unchanged" || len(cm.Annotations) != 0 {
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
	if readRollout(t, c, ref).Spec.Paused {
		t.Error("resume left spec.paused set")
	}
	expectLines(t, out.String(), "rollout resumed: spec.paused set to false on NodeSLORollout "+
		"koordinator-system/slo-controller-config (the ConfigMap is not written)")
	out.Reset()
	if err := SetPaused(context.Background(), c, ref, false, &out); err != nil ||
		!strings.Contains(out.String(), "resumed already (spec.paused is not set); nothing written") {
		t.Errorf("resuming twice: %v, %q", err, out.String())
	}
}

// The pause goes into the NodeSLORollout the controller created, keeping
// its status and the rest of its spec.
func TestSetPausedKeepsTheControllersStatus(t *testing.T) {
	status := nodeslov1alpha1.NodeSLORolloutStatus{Phase: phaseProgressing, Revision: 4, Record: `{"target":"x"}`}
	c, ref := pauseFixture(map[string]string{string(sloconfig.KeyRollout): `{}`},
		rolloutObject(pauseRef, nodeslov1alpha1.NodeSLORolloutSpec{}, status))
	if err := SetPaused(context.Background(), c, ref, true, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	obj := readRollout(t, c, ref)
	if !obj.Spec.Paused || obj.Status.Revision != 4 || obj.Status.Record != status.Record {
		t.Errorf("after pause: spec %+v, status %+v", obj.Spec, obj.Status)
	}
}

// Without the rollout key there is nothing to pause. A pause the key holds
// is not lifted by resume, which writes only the spec: it says where to
// lift it. An invalid key does not stop a pause.
func TestSetPausedRefusals(t *testing.T) {
	c, ref := pauseFixture(map[string]string{threshold: "{}"})
	err := SetPaused(context.Background(), c, ref, true, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "has no nodeslo-rollout-config key") {
		t.Errorf("no key: %v", err)
	}
	if readRollout(t, c, ref) != nil {
		t.Error("a NodeSLORollout was created")
	}

	c, ref = pauseFixture(map[string]string{string(sloconfig.KeyRollout): `{"paused": true}`})
	err = SetPaused(context.Background(), c, ref, false, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), `"paused": true in nodeslo-rollout-config pauses the rollout too: `+
		"set it to false in the ConfigMap (in Git, when a GitOps tool syncs it)") ||
		!strings.Contains(err.Error(), "nothing written") {
		t.Errorf("resume of a pause by the key: %v", err)
	}
	if readRollout(t, c, ref) != nil {
		t.Error("a NodeSLORollout was created")
	}
	var out bytes.Buffer
	if err := SetPaused(context.Background(), c, ref, true, &out); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := SetPaused(context.Background(), c, ref, false, &out); err != nil {
		t.Fatal(err)
	}
	expectLines(t, out.String(), "spec.paused set to false on NodeSLORollout koordinator-system/slo-controller-config "+
		`(the ConfigMap is not written); the rollout stays held: "paused": true in nodeslo-rollout-config`)

	c, ref = pauseFixture(map[string]string{string(sloconfig.KeyRollout): `[1]`})
	err = SetPaused(context.Background(), c, ref, true, &bytes.Buffer{})
	if err != nil || !readRollout(t, c, ref).Spec.Paused {
		t.Errorf("pause with an invalid key: %v", err)
	}
}

// A pause left from before the key was removed is lifted by resume: it
// would otherwise hold the next rollout.
func TestResumeLiftsAPauseLeftWithoutAKey(t *testing.T) {
	c, ref := pauseFixture(map[string]string{threshold: "{}"},
		rolloutObject(pauseRef, nodeslov1alpha1.NodeSLORolloutSpec{Paused: true}, nodeslov1alpha1.NodeSLORolloutStatus{}))
	var out bytes.Buffer
	if err := SetPaused(context.Background(), c, ref, false, &out); err != nil {
		t.Fatal(err)
	}
	if readRollout(t, c, ref).Spec.Paused {
		t.Error("spec.paused is still set")
	}
	expectLines(t, out.String(),
		"has no nodeslo-rollout-config key, so it held no rollout, but it would have paused the next one")
}

// A create that loses the race to the controller's is sent again as a
// patch of the spec: the controller's status stays.
func TestSetPausedAfterTheControllerCreatedItMeanwhile(t *testing.T) {
	c, ref := pauseFixture(map[string]string{string(sloconfig.KeyRollout): `{}`})
	racing := &createdMeanwhile{Client: c, obj: rolloutObject(ref, nodeslov1alpha1.NodeSLORolloutSpec{},
		nodeslov1alpha1.NodeSLORolloutStatus{Phase: phaseProgressing, Revision: 2})}
	var out bytes.Buffer
	if err := SetPaused(context.Background(), racing, ref, true, &out); err != nil {
		t.Fatal(err)
	}
	obj := readRollout(t, c, ref)
	if !racing.created || !obj.Spec.Paused || obj.Status.Revision != 2 {
		t.Errorf("after the race: spec %+v, status %+v", obj.Spec, obj.Status)
	}
}

// createdMeanwhile stands for the controller creating the NodeSLORollout
// between the plugin's read and its create.
type createdMeanwhile struct {
	client.Client
	obj     *nodeslov1alpha1.NodeSLORollout
	created bool
}

func (c *createdMeanwhile) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	if _, ok := obj.(*nodeslov1alpha1.NodeSLORollout); ok && !c.created {
		c.created = true
		if err := c.Client.Create(ctx, c.obj); err != nil {
			return err
		}
	}
	return c.Client.Create(ctx, obj, opts...)
}
