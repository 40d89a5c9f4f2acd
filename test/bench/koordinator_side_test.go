package main

import (
	"slices"
	"testing"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// koord-manager's phase passes when its spec changes are the expected
// number, whatever its writes that changed nothing; its writes are the
// NodeSLO writes kube-apiserver served without failing.
func TestNewKoordinatorFigures(t *testing.T) {
	requests := requestTable{
		"POST " + nodeSLOResource:   {Count: 3},
		"PUT " + nodeSLOResource:    {Count: 7, Failed: 2},
		"GET " + nodeSLOResource:    {Count: 9},
		"EVENTS " + nodeSLOResource: {Count: 10},
		"PUT configmaps":            {Count: 1},
	}
	p := phaseResult{Phase: phaseRestart, Seconds: 2, Reconciles: 5, cpuFigures: cpuFigures{CPUSeconds: 0.5}}
	k := newKoordinatorFigures(p, requests, map[string]int64{"a": 1}, map[string]int64{"a": 1}, 0)
	if k.Writes != 8 || k.SpecChanges != 0 || k.Check != checkPass || k.Reconciles != 5 || k.CPUSeconds != 0.5 {
		t.Errorf("restart with writes that changed nothing: %+v", k)
	}
	k = newKoordinatorFigures(p, requests, map[string]int64{"a": 1}, map[string]int64{"a": 2}, 0)
	if k.SpecChanges != 1 || k.Check != checkFail {
		t.Errorf("a spec change where none is expected: %+v", k)
	}
}

// The nodes a phase awaits are those whose spec the change alters, sorted.
func TestChangedNames(t *testing.T) {
	x := &slov1alpha1.NodeSLOSpec{}
	y := &slov1alpha1.NodeSLOSpec{}
	y.CPUBurstStrategy = &slov1alpha1.CPUBurstStrategy{}
	before := specSet{"n2": x, "n1": x, "n3": x}
	after := specSet{"n3": y, "n1": y, "n2": x}
	if got, want := changedNames(before, after), []string{"n1", "n3"}; !slices.Equal(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
	if got := changedNames(specSet{}, after); !slices.Equal(got, []string{"n1", "n3"}) {
		t.Errorf("from none: %v, want the nodes whose spec is not empty", got)
	}
}
