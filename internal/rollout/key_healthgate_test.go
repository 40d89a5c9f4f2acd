package rollout

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

func TestHealthGateDefaults(t *testing.T) {
	load := LoadKey(map[string]string{string(sloconfig.KeyRollout): defaultGateKey})
	if !load.Valid() {
		t.Fatalf("errors: %v", load.Messages())
	}
	g := load.Policy.HealthGate
	if g == nil {
		t.Fatal("healthGate {} compiled to no gate")
	}
	if g.MaxUnhealthyNodes.String() != "10%" || g.MaxEvictionsPerNode != 3 || g.Revert ||
		g.PodSelector.String() != "koordinator.sh/qosClass=BE" ||
		!slices.Equal(g.Conditions, []corev1.NodeConditionType{
			corev1.NodeReady, corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure}) {
		t.Errorf("defaults: %+v", g)
	}
	if LoadKey(map[string]string{string(sloconfig.KeyRollout): `{}`}).Policy.HealthGate != nil {
		t.Error("a key without healthGate has a gate")
	}
}

func TestHealthGateEmptyListsAreDefaults(t *testing.T) {
	const emptyLists = `{"healthGate": {"nodeConditions": []}}`
	load := LoadKey(map[string]string{string(sloconfig.KeyRollout): emptyLists})
	if !load.Valid() {
		t.Fatalf("errors: %v", load.Messages())
	}
	if g := load.Policy.HealthGate; len(g.Conditions) != 4 {
		t.Errorf("empty lists did not read as the defaults: %+v", g)
	}
}

const (
	tenPercentGate = `"10%"`
	memoryPressure = "MemoryPressure"
)

func TestHealthGateMaxUnhealthy(t *testing.T) {
	for _, c := range []struct {
		raw     string
		reached int
		want    int
	}{
		{tenPercentGate, 4, 0}, {tenPercentGate, 40, 4}, {tenPercentGate, 45, 4},
		{`1`, 4, 1}, {`0`, 100, 0}, {`"100%"`, 7, 7},
	} {
		load := LoadKey(map[string]string{
			string(sloconfig.KeyRollout): `{"healthGate": {"maxUnhealthyNodes": ` + c.raw + `}}`,
		})
		if !load.Valid() {
			t.Fatalf("%s: %v", c.raw, load.Messages())
		}
		if got := load.Policy.HealthGate.MaxUnhealthy(c.reached); got != c.want {
			t.Errorf("maxUnhealthyNodes %s of %d reached: %d, want %d", c.raw, c.reached, got, c.want)
		}
	}
}

func TestHealthGateErrors(t *testing.T) {
	// What the CRD's schema checks (bounds, enums, names) is
	// test/crd/strategy_test.go's; these are what it lets through.
	for _, c := range []struct{ raw, want string }{
		{`{"evictions": {"podSelector": {"matchLabels": {"koordinator.sh/qosClass": "B E"}}}}`,
			`healthGate.evictions.podSelector.matchLabels: Invalid value: "B E"`},
		{`{"evictions": {"podSelector": {"matchExpressions": [{"key": "tier", "operator": "Near"}]}}}`,
			`healthGate.evictions.podSelector.matchExpressions[0].operator: Invalid value: "Near"`},
		{`{"evictions": {"podSelector": {"matchExpressions": [{"key": "tier", "operator": "In"}]}}}`,
			`healthGate.evictions.podSelector.matchExpressions[0].values: Required value`},
		{`{"evictions": {"podSelector": {"matchLabel": {"tier": "batch"}}}}`,
			`healthGate.evictions.podSelector`},
	} {
		load := LoadKey(map[string]string{string(sloconfig.KeyRollout): `{"healthGate": ` + c.raw + `}`})
		msgs := strings.Join(load.Messages(), "\n")
		if load.Valid() || !strings.Contains(msgs, c.want) {
			t.Errorf("%s: errors %q, want one containing %q", c.raw, msgs, c.want)
		}
	}
}

func TestHealthGateUnknownFieldWarned(t *testing.T) {
	const misspelt = `{"healthGate": {"onUnhealty": "revert", "evictions": {"maxPerNod": 1}}}`
	load := LoadKey(map[string]string{string(sloconfig.KeyRollout): misspelt})
	warnings := strings.Join(load.WarningMessages(), "\n")
	for _, want := range []string{`did you mean "onUnhealthy"`, `did you mean "maxPerNode"`} {
		if !strings.Contains(warnings, want) {
			t.Errorf("warnings %q lack %q", warnings, want)
		}
	}
}

func TestConditionBad(t *testing.T) {
	for _, c := range []struct {
		t    corev1.NodeConditionType
		s    corev1.ConditionStatus
		want bool
	}{
		{corev1.NodeReady, "True", false}, {corev1.NodeReady, "False", true}, {corev1.NodeReady, "Unknown", true},
		{memoryPressure, "True", true}, {memoryPressure, "False", false}, {memoryPressure, "Unknown", false},
	} {
		if got := ConditionBad(c.t, c.s); got != c.want {
			t.Errorf("%s=%s bad: %t, want %t", c.t, c.s, got, c.want)
		}
	}
}

func TestHealthGatePodSelector(t *testing.T) {
	for _, c := range []struct{ raw, want, warning string }{
		{raw: `{"matchLabels": {"tier": "batch"}}`, want: "tier=batch"},
		{raw: `{"matchExpressions": [{"key": "koordinator.sh/qosClass", "operator": "In", "values": ["BE", "LS"]}]}`,
			want: "koordinator.sh/qosClass in (BE,LS)"},
		{raw: `{}`, want: "", warning: "healthGate.evictions.podSelector: {} selects every Pod"},
	} {
		load := LoadKey(map[string]string{string(sloconfig.KeyRollout): `{"healthGate": {"evictions": ` +
			`{"podSelector": ` + c.raw + `}}}`})
		if !load.Valid() {
			t.Fatalf("%s: %v", c.raw, load.Messages())
		}
		if got := load.Policy.HealthGate.PodSelector.String(); got != c.want {
			t.Errorf("%s: selector %q, want %q", c.raw, got, c.want)
		}
		if warnings := strings.Join(load.WarningMessages(), "\n"); !strings.Contains(warnings, c.warning) ||
			(c.warning == "") != (warnings == "") {
			t.Errorf("%s: warnings %q, want %q", c.raw, warnings, c.warning)
		}
	}
}

// Pods count only in the namespaces the manager's administrator lists
// (Limits.PodNamespaces), never in any the strategy could name; a strategy that
// tunes evictions under a manager that lists none is valid, with a
// warning that says where to count koordlet's evictions instead
// (docs/rollout.md#evictions).
func TestHealthGateCountsPodsOnlyInTheManagersNamespaces(t *testing.T) {
	const withEvictions = `{"healthGate": {"evictions": {"maxPerNode": 2}}}`
	for _, c := range []struct {
		name       string
		key        string
		limits     *Limits
		namespaces []string
		warning    string
	}{
		{"not known (kubectl nodeslo validate)", withEvictions, nil, nil, ""},
		{"none listed, the default gate", defaultGateKey, &Limits{}, nil, ""},
		{"none listed, evictions set", withEvictions, &Limits{},
			nil, "healthGate.evictions: no Pod is counted: the manager counts the Pods of the namespaces " +
				"its administrator lists in --health-gate-pod-namespaces (Helm: healthGate.podNamespaces)"},
		{"listed", withEvictions, &Limits{PodNamespaces: []string{beJobs, "be"}}, []string{beJobs, "be"}, ""},
		{"listed, the default gate", defaultGateKey, &Limits{PodNamespaces: []string{beJobs}},
			[]string{beJobs}, ""},
	} {
		data := map[string]string{string(sloconfig.KeyRollout): c.key}
		load := LoadKey(data)
		if c.limits != nil {
			load = LoadKeyWithin(data, *c.limits)
		}
		if !load.Valid() {
			t.Fatalf("%s: %v", c.name, load.Messages())
		}
		if got := load.Policy.HealthGate.PodNamespaces; !slices.Equal(got, c.namespaces) {
			t.Errorf("%s: Pods counted in %q, want %q", c.name, got, c.namespaces)
		}
		warnings := strings.Join(load.WarningMessages(), "\n")
		if !strings.Contains(warnings, c.warning) || (c.warning == "") != (warnings == "") {
			t.Errorf("%s: warnings %q, want %q", c.name, warnings, c.warning)
		}
	}
}

func TestParsePodNamespaces(t *testing.T) {
	for _, c := range []struct {
		list string
		want []string
		err  string
	}{
		{"", nil, ""},
		{" be-jobs, be ,be-jobs,", []string{"be", beJobs}, ""},
		{"be-jobs,Tenant_A", nil, `namespace "Tenant_A": a lowercase RFC 1123 label`},
		{manyNamespaces(maxPodNamespaces + 1), nil, "33 namespaces: at most 32"},
	} {
		got, err := ParsePodNamespaces(c.list)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.list, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%q: %q, %v; want %q", c.list, got, err, c.want)
		}
	}
	if got, err := ParsePodNamespaces(manyNamespaces(maxPodNamespaces)); err != nil || len(got) != maxPodNamespaces {
		t.Errorf("%d namespaces: %d, %v", maxPodNamespaces, len(got), err)
	}
}

// manyNamespaces is a list of n distinct namespace names.
func manyNamespaces(n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = "ns-" + strconv.Itoa(i)
	}
	return strings.Join(names, ",")
}

// defaultGateKey is a strategy whose gate has every default.
const defaultGateKey = `{"healthGate": {}}`

// beJobs names a namespace the manager counts Pods in.
const beJobs = "be-jobs"
