package rollout

import (
	"maps"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// legacyStatusAnnotation is the status the controller's versions before the
// NodeSLORollout kept on the revision in force: left on old revisions, it
// must be ignored.
const legacyStatusAnnotation = "nodeslo.koordinator.sh/rollout-status"

// FuzzRevisionOf feeds the revision history's reader a ControllerRevision
// whose data and annotations anyone who may write revisions in the
// namespace chose (docs/rollout.md#revision-history-and-undo): it must never
// panic, and a revision it reads renders as a ControllerRevision it reads
// back the same.
func FuzzRevisionOf(f *testing.F) {
	good := Revision{Number: 3, Fingerprint: "f", Data: map[string]string{"cpu-burst-config": "{}"},
		ConfigMapVersion: "12", ChangedBy: "kubectl-edit", Outcome: OutcomeCompleted, Reached: 4}
	obj := good.Object(historyConfigMap)
	for _, seed := range []struct{ data, reached, outcome, status string }{
		{string(obj.Data.Raw), "4", string(OutcomeCompleted), `{"phase": "x"}`},
		{`{"data": null}`, "", "", ""}, {`{}`, "-1", "Nope", ""}, {jsonNull, "9223372036854775808", "", "{"},
		{`{"data": {"a": 1}}`, "x", "", ""}, {`[]`, " 3", "", ""}, {``, "", "", ""}, {`{"data": {"": ""}}`, "+7", "", ""},
	} {
		f.Add(seed.data, seed.reached, seed.outcome, seed.status)
	}
	f.Fuzz(func(t *testing.T, data, reached, outcome, status string) {
		cr := &appsv1.ControllerRevision{
			ObjectMeta: metav1.ObjectMeta{Namespace: historyConfigMap.Namespace, Name: historyConfigMap.Name + "-r3",
				Annotations: map[string]string{reachedAnnotation: reached, outcomeAnnotation: outcome,
					legacyStatusAnnotation: status, fingerprintAnnotation: "f"}},
			Data: runtime.RawExtension{Raw: []byte(data)}, Revision: 3,
		}
		r, err := RevisionOf(cr)
		if err != nil {
			return
		}
		back, err := RevisionOf(r.Object(historyConfigMap))
		if err != nil || !maps.Equal(back.Data, r.Data) || back.Reached != r.Reached || back.Outcome != r.Outcome ||
			back.Fingerprint != r.Fingerprint || back.Number != r.Number {
			t.Errorf("read %+v, rendered and read again %+v (%v)", r, back, err)
		}
	})
}
