package controller

import (
	"encoding/json"
	"testing"
	"time"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/v1alpha1"
)

func skewSpec(t *testing.T, s string) *slov1alpha1.NodeSLOSpec {
	t.Helper()
	spec := &slov1alpha1.NodeSLOSpec{}
	if err := json.Unmarshal([]byte(s), spec); err != nil {
		t.Fatal(err)
	}
	return spec
}

const skewPath = "resourceQOSStrategy.lsClass.memoryQOS.pageCacheLimitPercent"

func TestCRDSkewLearnsHoldsAndNoticesAnUpgrade(t *testing.T) {
	resolved := skewSpec(t,
		`{"resourceQOSStrategy": {"lsClass": {"memoryQOS": {"enable": true, "pageCacheLimitPercent": 50}}}}`)
	pruned := skewSpec(t, `{"resourceQOSStrategy": {"lsClass": {"memoryQOS": {"enable": true}}}}`)
	s := newCRDSkew(time.Minute)

	if holds, _ := s.holds(pruned, resolved); holds {
		t.Fatal("before anything is learned, a spec lacking a field differs")
	}
	if got := s.unknown([]string{skewPath}); len(got) != 1 {
		t.Fatalf("an unlearned path is unknown; got %q", got)
	}
	change := s.learn(resolved, pruned, []string{skewPath})
	if !change.changed || len(change.dropped) != 1 || change.dropped[0] != skewPath || change.regained != nil {
		t.Fatalf("learning a pruned write: %+v", change)
	}
	if holds, leaned := s.holds(pruned, resolved); !holds || !leaned {
		t.Errorf("a spec lacking only the dropped field holds (leaning on it): holds=%v leaned=%v", holds, leaned)
	}
	if again := s.learn(resolved, pruned, nil); again.changed {
		t.Errorf("the same lesson twice changes nothing: %+v", again)
	}
	if !s.firstReport(change.dropped) || s.firstReport(change.dropped) {
		t.Error("a set is reported once")
	}

	handEdited := skewSpec(t, `{"resourceQOSStrategy": {"lsClass": {}}}`)
	if holds, _ := s.holds(handEdited, resolved); holds {
		t.Error("a spec missing more than the dropped field differs")
	}

	upgraded := s.learn(resolved, resolved, nil)
	if !upgraded.changed || len(upgraded.regained) != 1 || upgraded.dropped != nil {
		t.Fatalf("a write whose answer keeps the field shows the CRD upgraded: %+v", upgraded)
	}
	if got := s.unknown([]string{skewPath}); len(got) != 0 {
		t.Errorf("a regained path is known kept; unknown = %q", got)
	}
	if holds, _ := s.holds(pruned, resolved); holds {
		t.Error("after the upgrade, a spec lacking the field differs again")
	}
}

func TestCRDSkewForgetsOnAConfigurationChange(t *testing.T) {
	resolved := skewSpec(t, `{"resourceQOSStrategy": {"lsClass": {"memoryQOS": {"pageCacheLimitPercent": 50}}}}`)
	pruned := skewSpec(t, `{"resourceQOSStrategy": {"lsClass": {"memoryQOS": {}}}}`)
	s := newCRDSkew(time.Minute)
	s.learn(resolved, pruned, nil)
	s.firstReport(s.Dropped())
	s.forget()
	if s.Dropped() != nil {
		t.Errorf("forget empties the set; got %q", s.Dropped())
	}
	relearned := s.learn(resolved, pruned, nil)
	if !relearned.changed || s.firstReport(relearned.dropped) {
		t.Error("the same set learned again after forget is not reported a second time")
	}
}

func TestCRDSkewRecheckIsRateLimited(t *testing.T) {
	s := newCRDSkew(time.Minute)
	now := time.Now()
	if !s.recheckDue(now) || s.recheckDue(now.Add(30*time.Second)) || !s.recheckDue(now.Add(61*time.Second)) {
		t.Error("one recheck per interval")
	}
}
