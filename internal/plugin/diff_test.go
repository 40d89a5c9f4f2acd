package plugin

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"slices"
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

// diffNodes are the nodes of the diff tests: a batch node with its own
// bandwidth, a node without labels, and two web nodes.
var diffNodes = []sloconfig.Node{
	{Name: "worker-4", Labels: map[string]string{poolKey: poolWeb}},
	{Name: worker1, Labels: map[string]string{poolKey: poolBatch},
		Annotations: map[string]string{sloconfig.NetworkBandwidthAnnotation: bandwidth25G}},
	{Name: worker2},
	{Name: "worker-3", Labels: map[string]string{poolKey: poolWeb}},
}

const (
	poolKey      = "pool"
	poolBatch    = "batch"
	poolWeb      = "web"
	bandwidth25G = "25G"
	worker1      = "worker-1"
	worker2      = "worker-2"
)

// liveData is the ConfigMap in force: testdata/good-configmap.yaml.
func liveData(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(goodConfigMap)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	ref := ConfigMapRef{Namespace: sloconfig.DefaultConfigMapNamespace, Name: sloconfig.DefaultConfigMapName}
	cm, err := ReadConfigMap(f, ref)
	if err != nil {
		t.Fatal(err)
	}
	return cm.Data
}

// storedSpecs are the NodeSLOs the controller wrote under data, for every
// node but worker-3 (created after them). worker-2's is stored with its
// bandwidth spelt 1000M, which equals the 1G the engine writes.
func storedSpecs(t *testing.T, data map[string]string) map[string]*slov1alpha1.NodeSLOSpec {
	t.Helper()
	cfg := sloconfig.Load(data, nil)
	stored := map[string]*slov1alpha1.NodeSLOSpec{}
	for _, n := range diffNodes {
		if n.Name == "worker-3" {
			continue
		}
		res := cfg.Resolve(n, nil)
		spec := res.Spec.DeepCopy()
		if n.Name == worker2 {
			b, _ := json.Marshal(spec)
			respelt := strings.Replace(string(b), `"totalNetworkBandwidth":"1G"`, `"totalNetworkBandwidth":"1000M"`, 1)
			if respelt == string(b) {
				t.Fatalf("no 1G bandwidth to respell in %s", b)
			}
			spec = &slov1alpha1.NodeSLOSpec{}
			if err := json.Unmarshal([]byte(respelt), spec); err != nil {
				t.Fatal(err)
			}
		}
		stored[n.Name] = spec
	}
	return stored
}

// newData is the change being previewed: a lower CPU suppression threshold
// for the cluster (not for batch nodes, which have their own), more free
// memory and a host application on web nodes, and the bandwidth respelt
// (the same value).
func newData(t *testing.T) map[string]string {
	data := liveData(t)
	data["resource-threshold-config"] = strings.Replace(data["resource-threshold-config"],
		`"cpuSuppressThresholdPercent": 60`, `"cpuSuppressThresholdPercent": 55`, 1)
	data["system-config"] = `{
  "clusterStrategy": {"totalNetworkBandwidth": "1G"},
  "nodeStrategies": [
    {"name": "web", "nodeSelector": {"matchLabels": {"pool": "web"}}, "minFreeKbytesFactor": 120},
    {"name": "all", "nodeSelector": {}, "minFreeKbytesFactor": 100}
  ]
}`
	data["host-application-config"] = `{"nodeConfigs": [{"name": "web", "nodeSelector": {"matchLabels": {"pool": "web"}},
  "applications": [{"name": "nginx", "qos": "LS"}]}]}`
	return data
}

func TestDiffNamesTheNodesAndFieldsThatWouldChange(t *testing.T) {
	result := Diff(DiffInputs{Nodes: diffNodes, Stored: storedSpecs(t, liveData(t)), Data: newData(t)})
	var out, errOut bytes.Buffer
	if err := result.Write(&out, &errOut); err != nil {
		t.Fatal(err)
	}
	golden(t, "diff.txt", out.String())
	if !result.Valid() || len(result.Changed) != 3 {
		t.Errorf("valid %v, %d changed", result.Valid(), len(result.Changed))
	}
}

func TestDiffOfTheConfigurationInForceIsEmpty(t *testing.T) {
	live := liveData(t)
	stored := storedSpecs(t, live)
	res := sloconfig.Load(live, nil).Resolve(diffNodes[3], nil)
	stored["worker-3"] = res.Spec.DeepCopy()
	result := Diff(DiffInputs{Nodes: diffNodes, Stored: stored, Data: live})
	var out, errOut bytes.Buffer
	if err := result.Write(&out, &errOut); err != nil {
		t.Fatal(err)
	}
	if len(result.Changed) != 0 || out.String() != "0 of 4 nodes would change (0 updated, 0 created), 4 unchanged\n" {
		t.Errorf("changes %+v:\n%s", result.Changed, out.String())
	}
}

func TestDiffOfAnInvalidKeyKeepsTheStoredValue(t *testing.T) {
	data := newData(t)
	data["system-config"] = `{"clusterStrategy": {"minFreeKbytesFactor": "lots"}}`
	result := Diff(DiffInputs{Nodes: diffNodes, Stored: storedSpecs(t, liveData(t)), Data: data})
	var out, errOut bytes.Buffer
	if err := result.Write(&out, &errOut); err != nil {
		t.Fatal(err)
	}
	if result.Valid() {
		t.Error("an invalid key counts as valid")
	}
	expectLines(t, errOut.String(), "system-config: clusterStrategy.minFreeKbytesFactor: Invalid value")
	if strings.Contains(out.String(), "systemStrategy") {
		t.Errorf("the frozen systemStrategy shows as changed:\n%s", out.String())
	}
}

// The rollout key is retired: diff reports it, valid or not, with where its
// policy went, and the file is not valid; the changes are still computed.
func TestDiffReportsTheRetiredRolloutKey(t *testing.T) {
	for _, key := range []string{twoNodesPerStep, invalidRolloutKey} {
		data := newData(t)
		data[string(sloconfig.KeyRollout)] = key
		result := Diff(DiffInputs{Nodes: diffNodes, Stored: storedSpecs(t, liveData(t)), Data: data})
		var out, errOut bytes.Buffer
		if err := result.Write(&out, &errOut); err != nil {
			t.Fatal(err)
		}
		if result.Valid() {
			t.Errorf("the retired rollout key %s counts as valid", key)
		}
		// The retired line, and no other about the key's value.
		rolloutKey := string(sloconfig.KeyRollout)
		if !slices.Contains(strings.Split(errOut.String(), "\n"), retiredKeyLine) ||
			strings.Count(errOut.String(), rolloutKey) != strings.Count(retiredKeyLine, rolloutKey) {
			t.Errorf("key %s: errors\n%s\nwant the line\n%s", key, errOut.String(), retiredKeyLine)
		}
		if len(result.Changed) != 3 {
			t.Errorf("key %s: %d nodes changed, want 3", key, len(result.Changed))
		}
	}
}

func TestFetchDiffInputs(t *testing.T) {
	objs := []client.Object{
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: worker1, Labels: map[string]string{poolKey: poolBatch},
			Annotations: map[string]string{sloconfig.NetworkBandwidthAnnotation: bandwidth25G}}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: worker2}},
		&slov1alpha1.NodeSLO{ObjectMeta: metav1.ObjectMeta{Name: worker1},
			Spec: slov1alpha1.NodeSLOSpec{CPUBurstStrategy: &slov1alpha1.CPUBurstStrategy{}}},
	}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objs...).Build()
	in, err := FetchDiffInputs(context.Background(), c, map[string]string{"x": "y"})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Nodes) != 2 || in.Nodes[0].Labels[poolKey] != poolBatch ||
		in.Nodes[0].Annotations[sloconfig.NetworkBandwidthAnnotation] != bandwidth25G {
		t.Errorf("nodes %+v", in.Nodes)
	}
	if len(in.Stored) != 1 || in.Stored[worker1].CPUBurstStrategy == nil || in.Data["x"] != "y" {
		t.Errorf("stored %+v, data %v", in.Stored, in.Data)
	}
}

func TestDiffNeedsAFile(t *testing.T) {
	code, _, stderr := run(t, "", "diff")
	if code != ExitVerdictError || !strings.Contains(stderr, "--filename (-f) is required") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
