package webhook

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// The webhook's cost follows the change (docs/behaviour.md#admission): these
// are the narrow checks of what the envtest suite cannot see, how much is
// done and when it stops.

// overlapping is a valid configuration whose two node strategies both match
// every node of nodeItems.
var overlapping = map[string]string{string(sloconfig.KeyCPUBurst): `{"clusterStrategy": {"policy": "auto"},
	"nodeStrategies": [
		{"name": "first", "nodeSelector": {"matchLabels": {"a": "1"}}, "policy": "cpuBurstOnly"},
		{"name": "second", "nodeSelector": {"matchLabels": {"b": "1"}}, "policy": "cfsQuotaBurstOnly"}]}`}

// nodeItems are n Nodes' metadata, all labelled a=1 and b=1.
func nodeItems(n int) []metav1.PartialObjectMetadata {
	items := make([]metav1.PartialObjectMetadata, n)
	for i := range items {
		items[i] = *sloconfig.NodeMetadata()
		items[i].Name = fmt.Sprintf("node-%d", i)
		items[i].Labels = map[string]string{"a": "1", "b": "1"}
	}
	return items
}

// countingNodes is a Node reader that serves nodeItems(n) and counts the lists.
type countingNodes struct {
	n     int
	lists int
}

func (c *countingNodes) Get(context.Context, client.ObjectKey, client.Object, ...client.GetOption) error {
	return errors.New("not used")
}

func (c *countingNodes) List(_ context.Context, list client.ObjectList, _ ...client.ListOption) error {
	c.lists++
	list.(*metav1.PartialObjectMetadataList).Items = nodeItems(c.n)
	return nil
}

// configKey is the configured ConfigMap, as deployed.
var configKey = types.NamespacedName{
	Namespace: sloconfig.DefaultConfigMapNamespace, Name: sloconfig.DefaultConfigMapName,
}

func configMap(data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: configKey.Namespace, Name: configKey.Name}, Data: data,
	}
}

func validator(nodes client.Reader) *ConfigMapValidator {
	return &ConfigMapValidator{Key: configKey, Nodes: nodes}
}

func TestAnUpdateLeavingTheDataAsStoredIsAdmittedWithoutChecks(t *testing.T) {
	nodes := &countingNodes{n: 3}
	v := validator(nodes)
	old := configMap(overlapping)
	annotated := old.DeepCopy()
	annotated.Annotations = map[string]string{sloconfig.AllowDeleteAnnotation: "true"}

	warnings, err := v.ValidateUpdate(t.Context(), old, annotated)
	if err != nil || len(warnings) > 0 || nodes.lists != 0 {
		t.Errorf("a metadata-only update: warnings %q, error %v, %d Node lists; want none of them",
			warnings, err, nodes.lists)
	}

	// The same validator checks a change of the data against the nodes.
	burst := string(sloconfig.KeyCPUBurst)
	changed := configMap(map[string]string{burst: overlapping[burst] + " "})
	warnings, err = v.ValidateUpdate(t.Context(), old, changed)
	if err != nil || nodes.lists != 1 || len(warnings) != 1 || !strings.Contains(warnings[0], "3 live nodes") {
		t.Errorf("a change of data: warnings %q, error %v, %d Node lists; want the overlap on 3 live nodes, "+
			"from one list", warnings, err, nodes.lists)
	}
}

func TestOverlapCheckingStopsWhenTheContextEnds(t *testing.T) {
	cfg := sloconfig.Load(overlapping, nil)
	items := nodeItems(2000)

	warnings, err := overlapWarnings(t.Context(), items, cfg)
	if err != nil || len(warnings) != 1 {
		t.Fatalf("with time left: warnings %q, error %v; want one overlap warning", warnings, err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	warnings, err = overlapWarnings(ctx, items, cfg)
	if !errors.Is(err, context.Canceled) || warnings != nil {
		t.Errorf("cancelled: warnings %q, error %v; want none and context.Canceled", warnings, err)
	}
	reach, count, err := cfg.ReachWithin(ctx, func(yield func(map[string]string) bool) {
		for i := range items {
			if !yield(items[i].Labels) {
				return
			}
		}
	})
	if !errors.Is(err, context.Canceled) || reach != nil || count != 0 {
		t.Errorf("reach cancelled: %v, %d nodes, error %v; want nothing and context.Canceled", reach, count, err)
	}
}

// Past the deadline, a valid value is admitted with one warning per check
// that was not made, and an invalid one is denied all the same: its errors
// come from the data alone.
func TestChecksCutShortByTheDeadline(t *testing.T) {
	ctx, cancel := context.WithDeadline(t.Context(), time.Now().Add(-time.Second))
	defer cancel()
	nodes := &countingNodes{n: 3}
	v := validator(nodes)

	warnings, err := v.ValidateCreate(ctx, configMap(overlapping))
	want := "node strategies were not checked against live nodes: the check did not finish within " +
		"the webhook's deadline (context deadline exceeded)"
	if err != nil || len(warnings) != 1 || warnings[0] != want {
		t.Errorf("valid, past the deadline: warnings %q, error %v; want admitted with %q", warnings, err, want)
	}

	bad := configMap(map[string]string{string(sloconfig.KeyCPUBurst): `{"clusterStrategy": {"policy": "sometimes"}}`})
	lists := nodes.lists
	if _, err := v.ValidateCreate(ctx, bad); err == nil || !strings.Contains(err.Error(), "clusterStrategy.policy") {
		t.Errorf("invalid, past the deadline: %v; want the denial", err)
	}
	if nodes.lists != lists {
		t.Errorf("an invalid value was checked against the live nodes")
	}
}

func TestTheAnswerDeadlineFollowsTheRequestsTimeout(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  time.Duration
	}{
		{query: "?timeout=5s", want: 4 * time.Second},
		{query: "?timeout=10s", want: 4 * time.Second}, // capped at the webhook's own
		{query: "?timeout=1s", want: 800 * time.Millisecond},
		{query: "", want: 4 * time.Second},
		{query: "?timeout=soon", want: 4 * time.Second},
		{query: "?timeout=-3s", want: 4 * time.Second},
	} {
		r := httptest.NewRequestWithContext(t.Context(), "POST", "/validate--v1-configmap"+tc.query, nil)
		start := time.Now()
		deadline, ok := withAnswerDeadline(r.Context(), r).Deadline()
		if got := deadline.Sub(start); !ok || got < tc.want || got > tc.want+time.Second/2 {
			t.Errorf("%q: deadline in %v (set: %v), want %v", tc.query, got, ok, tc.want)
		}
	}
}
