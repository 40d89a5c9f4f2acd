package rollout

import (
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

var historyConfigMap = types.NamespacedName{Namespace: "koordinator-system", Name: "slo-controller-config"}

// revisions builds a history whose revision i (from 1) has fingerprint f<i>.
func revisions(outcomes ...Outcome) []Revision {
	out := make([]Revision, len(outcomes))
	for i, o := range outcomes {
		n := int64(i + 1)
		out[i] = Revision{Number: n, Name: RevisionName(historyConfigMap.Name, n),
			Fingerprint: "f" + string(rune('0'+n)), Outcome: o, Reached: 2}
	}
	return out
}

func TestKeepHistory(t *testing.T) {
	data := map[string]string{"cpu-burst-config": "{}"}
	const who, fresh = "kubectl", "new"
	staged := InForce{Fingerprint: fresh, Data: data, Representable: true, ChangedBy: who, RolloutKey: `{}`}
	tests := []struct {
		name     string
		existing []Revision
		now      InForce
		limit    int
		create   *Revision
		outcomes []OutcomeChange
		deleted  []string
		keptFor  []string
	}{{
		name: "the first configuration is revision 1", now: staged, limit: 10,
		create: &Revision{Number: 1, Fingerprint: fresh, Data: data, ChangedBy: who,
			Outcome: OutcomeInProgress, RolloutKey: `{}`},
	}, {
		name: "without the rollout key it goes all at once", limit: 10,
		now:    InForce{Fingerprint: fresh, Data: data, Representable: true},
		create: &Revision{Number: 1, Fingerprint: fresh, Data: data, Outcome: OutcomeAllAtOnce, Reached: -1},
	}, {
		name: "the configuration of the newest revision adds none (a restart)", limit: 10,
		existing: revisions(OutcomeCompleted, OutcomeInProgress),
		now:      InForce{Fingerprint: "f2", Data: data, Representable: true, RolloutKey: `{}`},
	}, {
		name: "a new one supersedes a rollout in progress, numbered after the newest", limit: 10,
		existing: revisions(OutcomeCompleted, OutcomeInProgress), now: staged,
		create: &Revision{Number: 3, Fingerprint: fresh, Data: data, ChangedBy: who,
			Outcome: OutcomeInProgress, RolloutKey: `{}`},
		outcomes: []OutcomeChange{{Name: "slo-controller-config-r2", Outcome: OutcomeSuperseded, Reached: 2}},
	}, {
		name: "an earlier configuration again is a new revision", limit: 10,
		existing: revisions(OutcomeCompleted, OutcomeCompleted),
		now:      InForce{Fingerprint: "f1", Data: data, Representable: true, RolloutKey: `{}`},
		create:   &Revision{Number: 3, Fingerprint: "f1", Data: data, Outcome: OutcomeInProgress, RolloutKey: `{}`},
	}, {
		name: "the oldest beyond the limit go", limit: 2,
		existing: revisions(OutcomeCompleted, OutcomeCompleted, OutcomeCompleted), now: staged,
		create: &Revision{Number: 4, Fingerprint: fresh, Data: data, ChangedBy: who,
			Outcome: OutcomeInProgress, RolloutKey: `{}`},
		deleted: []string{"slo-controller-config-r1", "slo-controller-config-r2"},
	}, {
		name: "beyond the limit, a configuration still in force for held nodes stays", limit: 2,
		existing: revisions(OutcomeCompleted, OutcomeCompleted, OutcomeCompleted),
		now: InForce{Fingerprint: fresh, Data: data, Representable: true, ChangedBy: who, RolloutKey: `{}`,
			Held: []string{"f1"}},
		create: &Revision{Number: 4, Fingerprint: fresh, Data: data, ChangedBy: who,
			Outcome: OutcomeInProgress, RolloutKey: `{}`},
		deleted: []string{RevisionName(historyConfigMap.Name, 2)},
		keptFor: []string{"f1"},
	}, {
		name: "once no node is held on it, the kept revision goes (the same configuration again)", limit: 2,
		existing: revisions(OutcomeCompleted, OutcomeCompleted, OutcomeInProgress),
		now:      InForce{Fingerprint: "f3", Data: data, Representable: true, RolloutKey: `{}`},
		deleted:  []string{RevisionName(historyConfigMap.Name, 1)},
	}, {
		name: "a frozen key makes no revision", limit: 10,
		existing: revisions(OutcomeCompleted), now: InForce{Fingerprint: fresh},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := KeepHistory(tt.existing, tt.now, tt.limit)
			if !reflect.DeepEqual(got.Create, tt.create) {
				t.Errorf("create: got %+v, want %+v", got.Create, tt.create)
			}
			if !reflect.DeepEqual(got.Outcomes, tt.outcomes) {
				t.Errorf("outcomes: got %+v, want %+v", got.Outcomes, tt.outcomes)
			}
			if !reflect.DeepEqual(got.Delete, tt.deleted) {
				t.Errorf("delete: got %v, want %v", got.Delete, tt.deleted)
			}
			if !reflect.DeepEqual(got.KeptFor, tt.keptFor) {
				t.Errorf("kept for held nodes: got %v, want %v", got.KeptFor, tt.keptFor)
			}
		})
	}
}

func TestHeldReleased(t *testing.T) {
	for _, tt := range []struct {
		kept, held []string
		want       bool
	}{
		{kept: nil, held: nil, want: false},
		{kept: nil, held: []string{"f1"}, want: false},
		{kept: []string{"f1"}, held: []string{"f1", "f2"}, want: false},
		{kept: []string{"f1", "f2"}, held: []string{"f2"}, want: true},
		{kept: []string{"f1"}, held: nil, want: true},
	} {
		if got := HeldReleased(tt.kept, tt.held); got != tt.want {
			t.Errorf("HeldReleased(%v, %v) = %v, want %v", tt.kept, tt.held, got, tt.want)
		}
	}
}

func TestRevisionObjectRoundTrip(t *testing.T) {
	want := Revision{
		Number: 7, Fingerprint: "abc", ConfigMapVersion: "42", ChangedBy: "argo", ChangeCause: "ticket 42",
		Data:    map[string]string{"resource-threshold-config": "{\n  \"clusterStrategy\": {}\n}"},
		Outcome: OutcomeInProgress, Reached: 3, RolloutKey: `{"paused": true}`,
	}
	obj := want.Object(historyConfigMap)
	if obj.Name != "slo-controller-config-r7" || obj.Namespace != historyConfigMap.Namespace ||
		obj.Labels[RevisionConfigMapLabel] != historyConfigMap.Name || obj.Revision != 7 || len(obj.OwnerReferences) != 0 {
		t.Fatalf("object: %+v", obj.ObjectMeta)
	}
	created := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	obj.CreationTimestamp = metav1.NewTime(created)
	got, err := RevisionOf(obj)
	if err != nil {
		t.Fatal(err)
	}
	want.Name, want.Created = obj.Name, created
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip: got %+v, want %+v", got, want)
	}
	obj.Data.Raw = []byte("not json")
	if _, err := RevisionOf(obj); err == nil {
		t.Error("a ControllerRevision whose data is not a revision is an error")
	}
}

func TestChangedKeys(t *testing.T) {
	before := map[string]string{"a": "1", "b": "2", "c": "3"}
	after := map[string]string{"a": "1", "b": "22", "d": "4"}
	if got := ChangedKeys(before, after); !reflect.DeepEqual(got, []string{"b", "c", "d"}) {
		t.Errorf("got %v", got)
	}
	if got := ChangedKeys(before, before); got != nil {
		t.Errorf("no change: got %v", got)
	}
}

func TestLastWriter(t *testing.T) {
	at := func(second int) *metav1.Time {
		return new(metav1.NewTime(time.Date(2026, 1, 1, 0, 0, second, 0, time.UTC)))
	}
	fields := func(raw string) *metav1.FieldsV1 { return metav1.NewFieldsV1(raw) }
	entries := make([]metav1.ManagedFieldsEntry, 0, 5)
	entries = append(entries, []metav1.ManagedFieldsEntry{
		{Manager: "kubectl-create", Time: at(1), FieldsV1: fields(`{"f:data":{"f:cpu-burst-config":{}}}`)},
		{Manager: "argocd", Time: at(5), FieldsV1: fields(`{"f:data":{"f:system-config":{}}}`)},
		{Manager: "kubectl-annotate", Time: at(5), FieldsV1: fields(`{"f:metadata":{"f:annotations":{}}}`)},
		{Manager: "nodeslo-controller", Time: at(9), FieldsV1: fields(`{"f:metadata":{"f:annotations":{}}}`)},
	}...)
	if got := LastWriter(entries, "nodeslo-controller"); got != "argocd" {
		t.Errorf("got %q, want the newest writer but the controller, the one owning data on a tie", got)
	}
	// A write that only removed keys owns no data field: the newest entry names it.
	entries = append(entries, metav1.ManagedFieldsEntry{Manager: "kubectl-nodeslo", Time: at(7),
		FieldsV1: fields(`{"f:metadata":{"f:annotations":{"f:kubernetes.io/change-cause":{}}}}`)})
	if got := LastWriter(entries, "nodeslo-controller"); got != "kubectl-nodeslo" {
		t.Errorf("got %q, want kubectl-nodeslo", got)
	}
	if got := LastWriter(nil, ""); got != "" {
		t.Errorf("no managedFields: got %q", got)
	}
}

func TestRevertTo(t *testing.T) {
	r1 := Revision{Number: 1, Fingerprint: "A", ChangedBy: "kubectl"}
	r2 := Revision{Number: 2, Fingerprint: "B", ChangedBy: "kubectl"}
	reverted := Revision{Number: 3, Fingerprint: "A", ChangedBy: "gate"}
	if to, why := RevertTo([]Revision{r1, r2}, "B", "gate"); why != "" || to.Number != 1 {
		t.Errorf("revert of B: revision %d, %q", to.Number, why)
	}
	if _, why := RevertTo([]Revision{r2}, "B", "gate"); why == "" {
		t.Error("a revert without an earlier configuration")
	}
	if _, why := RevertTo([]Revision{r1, r2}, "C", "gate"); why == "" {
		t.Error("a revert of a configuration that is not the revision in force")
	}
	if _, why := RevertTo([]Revision{r1, r2, reverted}, "A", "gate"); why == "" {
		t.Error("a revert of a revert")
	}
}
