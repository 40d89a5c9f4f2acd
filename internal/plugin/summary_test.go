package plugin

import (
	"bytes"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// summaryData has a node strategy for pool=batch beside the cluster
// strategy, an invalid cpu-burst-config, and a policy paused or not under
// the retired rollout key (statusData).
func summaryData(paused bool) map[string]string {
	data := statusData(60, paused)
	data[threshold] = `{"clusterStrategy": {"enable": true, "cpuSuppressThresholdPercent": 60},
		"nodeStrategies": [{"name": "batch", "nodeSelector": {"matchLabels": {"pool": "batch"}},
			"cpuSuppressThresholdPercent": 40}]}`
	data[string(sloconfig.KeyCPUBurst)] = `{"clusterStrategy": {"policy": "sometimes"}}`
	return data
}

// summaryInputs: three batch nodes and one web node; batch-1 up to date,
// batch-2 stale, batch-3 and web-1 without a NodeSLO.
func summaryInputs(t *testing.T, paused bool) SummaryInputs {
	t.Helper()
	data := summaryData(paused)
	s := midRollout(data)
	s.Paused = paused
	// The controller took the data up: its status is of the ConfigMap as it
	// stands.
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: statusRef.Namespace, Name: statusRef.Name,
		ResourceVersion: fakeConfigMapVersion}, Data: data}
	status := NewRolloutStatus(statusRef, cm, decided(1, &s))
	batch := map[string]string{poolKey: poolBatch}
	nodes := []sloconfig.Node{{Name: batch1, Labels: batch}, {Name: batch2, Labels: batch},
		{Name: "batch-3", Labels: batch}, {Name: web1, Labels: map[string]string{poolKey: poolWeb}}}
	upToDate := sloconfig.Load(data, nil).Resolve(nodes[0], nil).Spec
	stale := sloconfig.Load(statusData(70, false), nil).Resolve(nodes[1], nil).Spec
	return SummaryInputs{Status: status, Data: data, Nodes: nodes,
		Stored: map[string]*slov1alpha1.NodeSLOSpec{batch1: &upToDate, batch2: &stale}}
}

func TestSummaryCountsStrategiesAndNodes(t *testing.T) {
	s := Summarize(summaryInputs(t, false))
	if s.Nodes != (NodeCounts{Total: 4, UpToDate: 1, Pending: 3, WithoutNodeSLO: 2}) {
		t.Errorf("nodes %+v", s.Nodes)
	}
	if s.Rollout.State != "progressing" || s.RevisionInForce != 1 {
		t.Errorf("rollout %+v, revision %d", s.Rollout, s.RevisionInForce)
	}
	keys := map[string]KeySummary{}
	for _, k := range s.Keys {
		keys[k.Key] = k
	}
	th := keys[threshold].Strategies
	if keys[threshold].Validity != validityValid || len(th) != 2 ||
		th[0].Applies != "clusterStrategy" || th[0].Nodes != 1 ||
		th[1].Applies != "nodeStrategy" || th[1].Strategy != poolBatch || *th[1].Index != 0 || th[1].Nodes != 3 {
		t.Errorf("%s: %+v", threshold, keys[threshold])
	}
	burst := keys[string(sloconfig.KeyCPUBurst)]
	if burst.Validity != "invalid" || len(burst.Errors) == 0 || burst.Strategies[0].Applies != "kept" {
		t.Errorf("cpu-burst-config: %+v", burst)
	}
	if k := keys[string(sloconfig.KeySystem)]; k.Validity != "absent" || k.Strategies[0].Applies != "defaults" ||
		k.Strategies[0].Nodes != 4 {
		t.Errorf("system-config: %+v", k)
	}
	var out bytes.Buffer
	if err := s.Write(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Rollout:   rollout of configuration " + s.Rollout.Configuration + ": 3 of 5 nodes reached, step 2 of 3\n",
		"resource-threshold-config  valid",
		"node strategy \"batch\" (index 0)              3\n",
		"Nodes: 4; up to date 1, pending 3, held 0 (without a NodeSLO: 2)\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, out.String())
		}
	}
}

// A paused rollout holds the nodes not up to date.
func TestSummaryOfAPausedRollout(t *testing.T) {
	s := Summarize(summaryInputs(t, true))
	if s.Rollout.State != rolloutHeld || s.Rollout.Reason != heldByPause || s.Nodes.Held != 3 || s.Nodes.Pending != 0 {
		t.Errorf("rollout %+v, nodes %+v", s.Rollout, s.Nodes)
	}
}

// A status the controller decided on an earlier version of the ConfigMap
// is not the data's: the summary says the controller has not taken it up,
// and names no configuration, which it does not compute.
func TestSummaryBeforeTheControllerTakesItUp(t *testing.T) {
	in := summaryInputs(t, false)
	in.Status.Object.Status.ObservedConfigMapVersion = "998"
	s := Summarize(in)
	if s.Rollout.State != rolloutNotTakenUp || s.Rollout.Configuration != "" || s.RevisionInForce != 1 ||
		!strings.HasPrefix(s.Rollout.Line, "Waiting for the controller to take up ConfigMap ") {
		t.Errorf("rollout %+v, revision %d", s.Rollout, s.RevisionInForce)
	}
}
