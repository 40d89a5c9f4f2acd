package rollout

import (
	"strings"
	"testing"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// A strategy's JSON padded to 256 KiB with whitespace is refused at
// load, naming spec.strategy, its size and the limit; the revision of its
// configuration still passes the apiserver's validation of annotations (so the history,
// undo and a revert keep working), with a stand-in that is invalid as the
// strategy was, and a change-cause cut to its bound.
func TestAHugeRolloutKeyIsRefusedAndTheRevisionStillFits(t *testing.T) {
	huge := `{"paused": false}` + strings.Repeat(" \n", 128<<10)
	load := LoadKey(map[string]string{string(sloconfig.KeyRollout): huge})
	msgs := strings.Join(load.Messages(), "\n")
	if load.Valid() || load.Policy != nil || !strings.Contains(msgs, "spec.strategy: ") ||
		!strings.Contains(msgs, "262161 bytes") || !strings.Contains(msgs, "131072 allowed") {
		t.Fatalf("a 256 KiB key loads valid=%t with %q, want an error naming the key, its size and the limit",
			load.Valid(), msgs)
	}

	r := Revision{Number: 1, Fingerprint: "f", Data: map[string]string{}, ChangedBy: "editor",
		ChangeCause: strings.Repeat("why ", 50<<10), Outcome: OutcomeInProgress, RolloutKey: huge}
	obj := r.Object(historyConfigMap)
	if errs := apiAnnotationErrors(obj.Annotations); len(errs) > 0 {
		t.Fatalf("the apiserver would refuse the revision: %v", errs.ToAggregate())
	}
	back, err := RevisionOf(obj)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(back.RolloutKey, "not kept") || !strings.Contains(back.RolloutKey, "262161 bytes") {
		t.Errorf("the revision keeps %q for the key, want a stand-in saying why", back.RolloutKey)
	}
	if kept := LoadKey(map[string]string{string(sloconfig.KeyRollout): back.RolloutKey}); kept.Valid() {
		t.Error("the stand-in loads valid: a ConfigMap reset under it would not be held as under the key")
	}
	if len(back.ChangeCause) > MaxChangeCause || !strings.HasSuffix(back.ChangeCause, "(cut at 1024 bytes)") {
		t.Errorf("the change-cause kept is %d bytes, want at most %d, saying it was cut",
			len(back.ChangeCause), MaxChangeCause)
	}
}

// A strategy of exactly the limit is kept whole, and loads.
func TestARolloutKeyAtTheLimitIsKept(t *testing.T) {
	key := `{"stepIntervalSeconds": 5}`
	key += strings.Repeat(" ", MaxKeyBytes-len(key))
	if load := LoadKey(map[string]string{string(sloconfig.KeyRollout): key}); !load.Valid() {
		t.Fatalf("a key of %d bytes: %v", len(key), load.Messages())
	}
	r := Revision{Number: 1, ChangeCause: strings.Repeat("x", MaxChangeCause), RolloutKey: key}
	obj := r.Object(historyConfigMap)
	if errs := apiAnnotationErrors(obj.Annotations); len(errs) > 0 {
		t.Fatalf("the apiserver would refuse the revision: %v", errs.ToAggregate())
	}
	if back, _ := RevisionOf(obj); back.RolloutKey != key || len(back.ChangeCause) != MaxChangeCause {
		t.Errorf("a key and a change-cause within their limits were not kept whole")
	}
}

// apiAnnotationErrors is what the apiserver's validation of an object's
// annotations (their total size included) finds in annotations.
func apiAnnotationErrors(annotations map[string]string) field.ErrorList {
	return apivalidation.ValidateAnnotations(annotations, field.NewPath("metadata", "annotations"))
}
