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
	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

var configMapKey = client.ObjectKey{
	Namespace: sloconfig.DefaultConfigMapNamespace,
	Name:      sloconfig.DefaultConfigMapName,
}

// workerNode is the node every test explains, with labels.
func workerNode(labels map[string]string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-1", Labels: labels}}
}

func configMap(data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: configMapKey.Namespace, Name: configMapKey.Name},
		Data:       data,
	}
}

// resolved is the NodeSLO the controller would write for n under cm.
func resolved(n *corev1.Node, cm *corev1.ConfigMap) *slov1alpha1.NodeSLO {
	var data map[string]string
	if cm != nil {
		data = cm.Data
	}
	r := sloconfig.Load(data, nil).Resolve(sloconfig.Node{Name: n.Name, Labels: n.Labels, Annotations: n.Annotations}, nil)
	return &slov1alpha1.NodeSLO{ObjectMeta: metav1.ObjectMeta{Name: n.Name}, Spec: *r.Spec.DeepCopy()}
}

func explainLive(t *testing.T, objs ...client.Object) (Explanation, string) {
	t.Helper()
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objs...).Build()
	in, err := FetchExplainInputs(context.Background(), c, "worker-1", configMapKey)
	if err != nil {
		t.Fatalf("FetchExplainInputs: %v", err)
	}
	e := Explain(in)
	var out bytes.Buffer
	if err := e.Write(&out); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return e, out.String()
}

// expectLines fails the test for each wanted text the output lacks.
func expectLines(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

const thresholdWithTwoNodeStrategies = `{
  "clusterStrategy": {"enable": true},
  "nodeStrategies": [
    {"name": "batch", "nodeSelector": {"matchLabels": {"pool": "batch"}}, "cpuSuppressThresholdPercent": 80},
    {"name": "colocation", "nodeSelector": {"matchLabels": {"pool": "colocation"}}, "cpuSuppressThresholdPercent": 70}
  ]
}`

func TestExplainNamesTheMatchingNodeStrategyAndTheClusterStrategy(t *testing.T) {
	n := workerNode(map[string]string{"pool": "colocation"})
	cm := configMap(map[string]string{
		string(sloconfig.KeyResourceThreshold): thresholdWithTwoNodeStrategies,
		string(sloconfig.KeyCPUBurst):          `{"clusterStrategy": {"policy": "auto"}}`,
	})
	e, out := explainLive(t, n, cm, resolved(n, cm))

	if got := e.Matches[0]; got.Strategy != "colocation" || got.Index != 1 {
		t.Errorf("resource-threshold-config match = %+v, want node strategy colocation at index 1", got)
	}
	expectLines(t, out,
		"resource-threshold-config  valid              node strategy \"colocation\" (index 1)",
		"cpu-burst-config           valid              cluster strategy",
		"system-config              absent (defaults)  built-in defaults",
		"NodeSLO:   matches the configuration",
	)
	if !e.InSync() {
		t.Errorf("InSync() = false, differing: %v", e.DifferingSections)
	}
}

func TestExplainShowsTheErrorsOfAnInvalidKey(t *testing.T) {
	n := workerNode(nil)
	cm := configMap(map[string]string{
		string(sloconfig.KeyResourceThreshold): `{"clusterStrategy": {"cpuSuppressThresholdPercent": 150}}`,
	})
	stored := resolved(n, nil)
	_, out := explainLive(t, n, cm, stored)
	expectLines(t, out,
		"resource-threshold-config  invalid",
		"the value in force is kept (stored NodeSLO)",
		"error:   clusterStrategy.cpuSuppressThresholdPercent",
		"NodeSLO:   matches the configuration",
	)
}

func TestExplainNamesTheSectionsOfAStaleNodeSLO(t *testing.T) {
	n := workerNode(nil)
	cm := configMap(map[string]string{string(sloconfig.KeyCPUBurst): `{"clusterStrategy": {"policy": "auto"}}`})
	stale := resolved(n, nil) // written before the ConfigMap changed
	e, out := explainLive(t, n, cm, stale)
	if want := []string{"cpuBurstStrategy"}; len(e.DifferingSections) != 1 || e.DifferingSections[0] != want[0] {
		t.Errorf("DifferingSections = %v, want %v", e.DifferingSections, want)
	}
	expectLines(t, out, "differs from the configuration in cpuBurstStrategy")
}

func TestExplainShowsTheBandwidthAnnotationInForce(t *testing.T) {
	n := workerNode(nil)
	n.Annotations = map[string]string{sloconfig.NetworkBandwidthAnnotation: "25000M"}
	cm := configMap(map[string]string{
		string(sloconfig.KeySystem): `{"clusterStrategy": {"totalNetworkBandwidth": "10G"}}`,
	})
	_, out := explainLive(t, n, cm, resolved(n, cm))
	expectLines(t, out, "Bandwidth: 25G (annotation node.koordinator.sh/network-bandwidth=25000M)")
}

func TestExplainWithoutConfigMapOrNodeSLO(t *testing.T) {
	e, out := explainLive(t, workerNode(nil))
	if e.ConfigMapSet || e.NodeSLOFound || e.InSync() {
		t.Errorf("explanation = %+v, want no ConfigMap, no NodeSLO, not in sync", e)
	}
	expectLines(t, out, "does not exist: every key has its built-in defaults", "absent: the controller has not written it")
}

func TestFetchExplainInputsFailsForAMissingNode(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(scheme.New()).Build()
	if _, err := FetchExplainInputs(context.Background(), c, "nowhere", configMapKey); err == nil ||
		err.Error() != `node "nowhere" not found` {
		t.Errorf("err = %v, want node \"nowhere\" not found", err)
	}
}
