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

	"github.com/nodeslo/nodeslo-controller/api/scheme"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

func pauseFixture(data map[string]string) (client.Client, ConfigMapRef) {
	ref := ConfigMapRef{Namespace: "koordinator-system", Name: "slo-controller-config"}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name}, Data: data}
	return fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(cm).Build(), ref
}

func TestSetPausedKeepsTheOtherFieldsAndKeys(t *testing.T) {
	rolloutKey := string(sloconfig.KeyRollout)
	c, ref := pauseFixture(map[string]string{
		rolloutKey: `{"maxNodesPerStep": "10%", "canary": {"nodeSelector": {"matchLabels": {"pool": "c"}}}}`,
		threshold:  "unchanged",
	})
	var out bytes.Buffer
	if err := SetPaused(context.Background(), c, ref, true, &out); err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{}
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, cm); err != nil {
		t.Fatal(err)
	}
	load := rollout.LoadKey(cm.Data)
	if !load.Valid() || !load.Policy.Paused || load.Policy.Canary == nil || load.Policy.MaxNodesPerStep.String() != "10%" {
		t.Errorf("the key after pause: %q", cm.Data[rolloutKey])
	}
	if cm.Data[threshold] != "unchanged" || !strings.Contains(out.String(), "rollout paused") {
		t.Errorf("other keys %v; output %q", cm.Data, out.String())
	}
	out.Reset()
	_ = SetPaused(context.Background(), c, ref, true, &out)
	if !strings.Contains(out.String(), "paused already") {
		t.Errorf("pausing twice: %q", out.String())
	}
	if err := SetPaused(context.Background(), c, ref, false, &out); err != nil {
		t.Fatal(err)
	}
	_ = c.Get(context.Background(), client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, cm)
	if rollout.LoadKey(cm.Data).Policy.Paused {
		t.Error("resume left the rollout paused")
	}
}

func TestSetPausedRefusals(t *testing.T) {
	c, ref := pauseFixture(map[string]string{threshold: "{}"})
	err := SetPaused(context.Background(), c, ref, true, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "has no nodeslo-rollout-config key") {
		t.Errorf("no key: %v", err)
	}
	c, ref = pauseFixture(map[string]string{string(sloconfig.KeyRollout): `[1]`})
	err = SetPaused(context.Background(), c, ref, true, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "is not a JSON object") {
		t.Errorf("not an object: %v", err)
	}
}
