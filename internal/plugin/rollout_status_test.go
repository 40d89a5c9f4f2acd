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
	data[string(sloconfig.KeyRollout)] = `{"maxNodesPerStep": 0}`
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
