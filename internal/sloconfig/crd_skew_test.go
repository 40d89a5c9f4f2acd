package sloconfig

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/sets"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// specOf decodes a wire-form spec written in a test.
func specOf(t *testing.T, s string) *slov1alpha1.NodeSLOSpec {
	t.Helper()
	spec := &slov1alpha1.NodeSLOSpec{}
	if err := json.Unmarshal([]byte(s), spec); err != nil {
		t.Fatalf("bad spec literal: %v\n%s", err, s)
	}
	return spec
}

const pageCacheLimit = "resourceQOSStrategy.lsClass.memoryQOS.pageCacheLimitPercent"

func TestDroppedPaths(t *testing.T) {
	sent := specOf(t, `{
		"resourceQOSStrategy": {"lsClass": {"memoryQOS":
			{"enable": true, "pageCacheLimitPercent": 50, "pageCacheEnable": true}}},
		"systemStrategy": {"totalNetworkBandwidth": "1000M"},
		"hostApplications": [{"name": "a", "qos": "LS", "cgroupPath": {"base": "KubepodsBesteffort", "relativePath": "x"}},
		                     {"name": "b", "cgroupPath": {"relativePath": "y"}}]}`)
	stored := specOf(t, `{
		"resourceQOSStrategy": {"lsClass": {"memoryQOS": {"enable": true}}},
		"systemStrategy": {"totalNetworkBandwidth": "1G"},
		"hostApplications": [{"name": "a", "qos": "LS", "cgroupPath": {"base": "KubepodsBesteffort"}},
		                     {"name": "b", "cgroupPath": {}}]}`)
	want := []string{
		"hostApplications[].cgroupPath.relativePath",
		"resourceQOSStrategy.lsClass.memoryQOS.pageCacheEnable",
		pageCacheLimit,
	}
	if got := DroppedPaths(sent, stored); !slices.Equal(got, want) {
		t.Errorf("DroppedPaths = %q, want %q (a quantity written canonically is not dropped)", got, want)
	}
	if got := DroppedPaths(sent, sent); len(got) != 0 {
		t.Errorf("DroppedPaths of a spec stored whole = %q, want none", got)
	}
	whole := specOf(t, `{"resourceQOSStrategy": {"lsClass": {"memoryQOS": {"enable": true}}}}`)
	if got := DroppedPaths(whole, &slov1alpha1.NodeSLOSpec{}); !slices.Equal(got, []string{"resourceQOSStrategy"}) {
		t.Errorf("DroppedPaths of a missing section = %q, want only the section", got)
	}
}

func TestWithoutPathsGivesWhatTheCRDStores(t *testing.T) {
	sent := specOf(t, `{
		"resourceQOSStrategy": {"lsClass": {"memoryQOS": {"enable": true, "pageCacheLimitPercent": 50}},
		                        "beClass": {"memoryQOS": {"pageCacheLimitPercent": 20}}},
		"hostApplications": [{"name": "a", "cgroupPath": {"base": "KubepodsBesteffort", "relativePath": "x"}}]}`)
	stored := specOf(t, `{
		"resourceQOSStrategy": {"lsClass": {"memoryQOS": {"enable": true}}, "beClass": {"memoryQOS": {}}},
		"hostApplications": [{"name": "a", "cgroupPath": {"base": "KubepodsBesteffort"}}]}`)
	dropped := DroppedPaths(sent, stored)
	stripped := WithoutPaths(sent, dropped)
	if !SpecEqual(&stripped, stored) {
		t.Errorf("WithoutPaths(sent, %q) = %s, want the stored %s", dropped, specJSON(t, stripped), specJSON(t, *stored))
	}
	if DroppedPaths(sent, stored) == nil || sent.ResourceQOSStrategy.LSClass.MemoryQOS.PageCacheLimitPercent == nil {
		t.Error("WithoutPaths changed the spec it was given")
	}
	if got := WithoutPaths(sent, []string{"systemStrategy.totalNetworkBandwidth"}); !SpecEqual(&got, sent) {
		t.Error("removing a field the spec does not have changed it")
	}
}

func TestKeyOfPathAndLines(t *testing.T) {
	for path, want := range map[string]Key{
		pageCacheLimit:                         KeyResourceQOS,
		"hostApplications[].cgroupPath.base":   KeyHostApplication,
		"resourceUsedThresholdWithBE.enable":   KeyResourceThreshold,
		"cpuBurstStrategy.policy":              KeyCPUBurst,
		"systemStrategy.totalNetworkBandwidth": KeySystem,
		"extensions.Object":                    "",
	} {
		if got := KeyOfPath(path); got != want {
			t.Errorf("KeyOfPath(%q) = %q, want %q", path, got, want)
		}
	}
	lines := DroppedFieldLines([]string{pageCacheLimit, "cpuBurstStrategy.policy"})
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "resource-qos-config: spec."+pageCacheLimit+": ") ||
		!strings.HasPrefix(lines[1], "cpu-burst-config: spec.cpuBurstStrategy.policy: ") {
		t.Errorf("lines in Keys order, each naming key and path; got %q", lines)
	}
	note := DroppedFieldsNote([]string{pageCacheLimit})
	for _, want := range []string{pageCacheLimit, NodeSLOCRDName, "kubectl apply --server-side", "helm upgrade"} {
		if !strings.Contains(note, want) {
			t.Errorf("the note %q does not name %q", note, want)
		}
	}
}

func TestProbeSpecHoldsEveryFieldAnyStrategySets(t *testing.T) {
	cfg := Load(map[string]string{
		string(KeyResourceQOS): `{"clusterStrategy": {"lsClass": {"memoryQOS": {"enable": true}}},
			"nodeStrategies": [
				{"name": "a", "nodeSelector": {"matchLabels": {"pool": "a"}},
				 "lsClass": {"memoryQOS": {"pageCacheLimitPercent": 50}}},
				{"name": "b", "nodeSelector": {"matchLabels": {"pool": "b"}},
				 "beClass": {"memoryQOS": {"pageCacheEnable": true}}}]}`,
		string(KeyHostApplication): `{"applications": [{"name": "a"}],
			"nodeConfigs": [{"name": "x", "nodeSelector": {},
				"applications": [{"name": "a", "cgroupPath": {"relativePath": "r"}}]}]}`,
	}, nil)
	if !cfg.Valid() {
		t.Fatalf("the test's ConfigMap is invalid: %v", cfg.Reports())
	}
	probe := cfg.ProbeSpec()
	empty := &slov1alpha1.NodeSLOSpec{}
	got := DroppedPaths(&probe, empty)
	want := []string{"cpuBurstStrategy", "extensions", "hostApplications", "resourceQOSStrategy",
		"resourceUsedThresholdWithBE", "systemStrategy"}
	if !slices.Equal(got, want) {
		t.Errorf("sections of the probe = %q, want %q", got, want)
	}
	for _, path := range []string{pageCacheLimit, "resourceQOSStrategy.beClass.memoryQOS.pageCacheEnable",
		"resourceQOSStrategy.lsClass.memoryQOS.enable", "hostApplications[].cgroupPath.relativePath"} {
		without := WithoutPaths(&probe, []string{path})
		if dropped := DroppedPaths(&probe, &without); !slices.Equal(dropped, []string{path}) {
			t.Errorf("the probe lacks %s (dropping it drops %q)", path, dropped)
		}
	}
}

// StrategySpecs is what the CRD probe falls back to when the union of every
// strategy breaks a cross-field rule: each strategy alone, as the
// controller could write it.
func TestStrategySpecsOnePerStrategy(t *testing.T) {
	cfg := Load(map[string]string{
		string(KeyResourceThreshold): `{"clusterStrategy": {"enable": true, "memoryEvictThresholdPercent": 70},
			"nodeStrategies": [{"name": "c", "nodeSelector": {"matchLabels": {"pool": "c"}},
				"memoryEvictThresholdPercent": 85, "memoryEvictLowerPercent": 75}]}`,
	}, nil)
	specs := cfg.StrategySpecs()
	// Two threshold strategies, and the cluster strategy of each other key.
	if want := 2 + len(Keys) - 1; len(specs) != want {
		t.Fatalf("%d specs, want %d", len(specs), want)
	}
	for i, s := range specs[:2] {
		th := s.ResourceUsedThresholdWithBE
		if th == nil || s.Extensions == nil || s.ResourceQOSStrategy != nil {
			t.Fatalf("spec %d: %+v", i, s)
		}
		if th.MemoryEvictLowerPercent != nil && *th.MemoryEvictLowerPercent >= *th.MemoryEvictThresholdPercent {
			t.Errorf("spec %d breaks the cross-field rule: %+v", i, th)
		}
	}
}

// DroppedPaths walks only the sections that differ; the answer must be the
// one a walk of the whole specs gives, whichever sections are equal.
func TestDroppedPathsSkipsEqualSectionsOnly(t *testing.T) {
	sent := specOf(t, `{
		"resourceUsedThresholdWithBE": {"enable": true, "cpuSuppressThresholdPercent": 65},
		"resourceQOSStrategy": {"lsClass": {"memoryQOS": {"enable": true, "pageCacheLimitPercent": 50}}},
		"cpuBurstStrategy": {"policy": "auto", "cfsQuotaBurstPeriodSeconds": 60},
		"systemStrategy": {"minFreeKbytesFactor": 100, "totalNetworkBandwidth": "1000M"},
		"extensions": {"plugin": {"a": 1}},
		"hostApplications": [{"name": "a", "cgroupPath": {"base": "KubepodsBesteffort", "relativePath": "x"}}]}`)
	stored := specOf(t, `{
		"resourceUsedThresholdWithBE": {"enable": true},
		"resourceQOSStrategy": {"lsClass": {"memoryQOS": {"enable": true}}},
		"cpuBurstStrategy": {"policy": "auto"},
		"systemStrategy": {"totalNetworkBandwidth": "1G"},
		"hostApplications": [{"name": "a", "cgroupPath": {"base": "KubepodsBesteffort"}}]}`)
	whole := func(a, b *slov1alpha1.NodeSLOSpec) []string {
		set := sets.New[string]()
		droppedIn(specTree(a), specTree(b), "", set)
		return sets.List(set)
	}
	copySection := []func(to, from *slov1alpha1.NodeSLOSpec){
		func(to, from *slov1alpha1.NodeSLOSpec) {
			to.ResourceUsedThresholdWithBE = from.ResourceUsedThresholdWithBE
		},
		func(to, from *slov1alpha1.NodeSLOSpec) { to.ResourceQOSStrategy = from.ResourceQOSStrategy },
		func(to, from *slov1alpha1.NodeSLOSpec) { to.CPUBurstStrategy = from.CPUBurstStrategy },
		func(to, from *slov1alpha1.NodeSLOSpec) { to.SystemStrategy = from.SystemStrategy },
		func(to, from *slov1alpha1.NodeSLOSpec) { to.Extensions = from.Extensions },
		func(to, from *slov1alpha1.NodeSLOSpec) { to.HostApplications = from.HostApplications },
	}
	for mask := range 1 << len(copySection) {
		partly := *stored
		for i, copyOne := range copySection {
			if mask&(1<<i) != 0 {
				copyOne(&partly, sent) // this section stored whole
			}
		}
		if got, want := DroppedPaths(sent, &partly), whole(sent, &partly); !slices.Equal(got, want) {
			t.Errorf("sections %06b stored whole: DroppedPaths = %q, a walk of the whole specs = %q", mask, got, want)
		}
	}
	if got, want := DroppedPaths(sent, nil), whole(sent, nil); !slices.Equal(got, want) || len(got) != 6 {
		t.Errorf("nothing stored: DroppedPaths = %q, want every section %q", got, want)
	}
	if got := DroppedPaths(nil, stored); len(got) != 0 {
		t.Errorf("nothing sent: DroppedPaths = %q, want none", got)
	}
}
