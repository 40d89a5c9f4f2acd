package controller

import (
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/sets"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// crdSkew is what the NodeSLO controller has learned about the installed
// NodeSLO CRD (docs/behaviour.md#crd-version-skew): the field paths it
// drops, learned from the answers to the controller's own writes and dry
// runs, since the apiserver answers a write with the object it stored.
// Nothing here asks the apiserver: the CRD itself is not read (that would
// need a permission on CustomResourceDefinitions), the writes show it.
//
// A stored spec that differs from the resolved one only in dropped fields
// holds all the CRD can carry: writing it again would only be pruned again.
// The memory starts empty with the process and is learned again from the
// first differing NodeSLO, by one dry run (dryRun=All writes nothing).
type crdSkew struct {
	mu sync.Mutex
	// dropped are the paths the installed CRD was seen to drop.
	dropped sets.Set[string]
	// kept are the paths a write or dry run showed stored: a stored spec
	// that lacks one differs for another reason (a hand edit).
	kept sets.Set[string]
	// probedFor is the fingerprint of the configuration whose every field
	// was dry-run since the memory was last forgotten: only then does an
	// empty dropped mean the CRD stores all the configuration sets, and a
	// NodeSLO's digest can stand for its spec. probing lets one worker
	// dry-run at a time.
	probedFor string
	probing   sync.Mutex
	// recheckEvery bounds how often a decision that leans on dropped is
	// checked again with a dry run, so that an upgraded CRD is noticed.
	recheckEvery time.Duration
	lastCheck    time.Time
	// reported is the set last reported by an Event ("\x00"-joined).
	reported string
	// sorted is dropped as a sorted list, rebuilt when dropped changes;
	// callers may keep it, it is never written after.
	sorted []string
}

func newCRDSkew(recheckEvery time.Duration) *crdSkew {
	return &crdSkew{
		dropped: sets.New[string](), kept: sets.New[string](),
		recheckEvery: recheckEvery,
	}
}

// Dropped returns the paths the installed CRD drops, sorted (nil: none
// known). The list is shared: do not write into it.
func (s *crdSkew) Dropped() []string {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sorted
}

// skewChange is what one lesson changed.
type skewChange struct {
	// dropped is the set after the lesson, when it changed.
	changed bool
	dropped []string
	// regained are paths once dropped that the CRD now stores: it was upgraded.
	regained []string
}

// learn records what the apiserver stored (stored) when sent was written
// or dry-run: each field of sent that stored lacks is dropped, each field
// learned as dropped before that stored has is regained. missing are the
// fields a stored NodeSLO lacked before the write; those not dropped are
// kept.
func (s *crdSkew) learn(sent, stored *slov1alpha1.NodeSLOSpec, missing []string) skewChange {
	dropped := sloconfig.DroppedPaths(sent, stored)
	now := sets.New(dropped...)
	s.mu.Lock()
	defer s.mu.Unlock()
	out := skewChange{changed: s.markDropped(dropped)}
	for _, p := range sets.List(s.dropped) {
		// sent has p and the answer kept it: the CRD holds it now.
		if !now.Has(p) && hasPath(sent, p) && hasPath(stored, p) {
			s.dropped.Delete(p)
			s.kept.Insert(p)
			out.regained = append(out.regained, p)
			out.changed = true
		}
	}
	for _, p := range missing {
		if !now.Has(p) {
			s.kept.Insert(p)
		}
	}
	if out.changed {
		s.sorted = sets.List(s.dropped)
		if len(s.sorted) == 0 {
			s.sorted = nil
		}
	}
	out.dropped = s.sorted
	return out
}

// forget drops what was learned when the configuration in force changed:
// a field the new configuration no longer sets must stop being reported,
// and the writes and dry runs the change causes teach the rest again. The
// set last reported stays, so that learning the same set again records no
// second Event.
func (s *crdSkew) forget() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropped, s.kept, s.sorted, s.probedFor = sets.New[string](), sets.New[string](), nil, ""
	setDroppedFields(nil)
}

// learnDropped records paths a dry run of the whole configuration showed dropped.
func (s *crdSkew) learnDropped(paths []string) skewChange {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := skewChange{changed: s.markDropped(paths)}
	if out.changed {
		s.sorted = sets.List(s.dropped)
	}
	out.dropped = s.sorted
	return out
}

// probed reports whether the configuration of fingerprint was dry-run whole
// since the memory was last forgotten.
func (s *crdSkew) probed(fingerprint string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.probedFor == fingerprint
}

// learnProbe records what the dry run of the whole configuration of
// fingerprint showed dropped.
func (s *crdSkew) learnProbe(fingerprint string, dropped []string) skewChange {
	change := s.learnDropped(dropped)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.probedFor = fingerprint
	return change
}

// markDropped records paths as dropped (no longer kept) and reports whether
// any was new. The caller holds s.mu.
func (s *crdSkew) markDropped(paths []string) bool {
	changed := false
	for _, p := range paths {
		if !s.dropped.Has(p) {
			s.dropped.Insert(p)
			s.kept.Delete(p)
			changed = true
		}
	}
	return changed
}

// firstReport reports whether dropped differs from the set last reported,
// and marks it reported: concurrent lessons of one set give one Event.
func (s *crdSkew) firstReport(dropped []string) bool {
	key := strings.Join(dropped, "\x00")
	s.mu.Lock()
	defer s.mu.Unlock()
	if key == s.reported {
		return false
	}
	s.reported = key
	return true
}

// hasPath reports whether spec holds a value at path.
func hasPath(spec *slov1alpha1.NodeSLOSpec, path string) bool {
	without := sloconfig.WithoutPaths(spec, []string{path})
	return len(sloconfig.DroppedPaths(spec, &without)) > 0
}

// unknown returns the paths of missing that were never seen dropped or kept:
// only a dry run can tell why a stored NodeSLO lacks them.
func (s *crdSkew) unknown(missing []string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, p := range missing {
		if !s.dropped.Has(p) && !s.kept.Has(p) {
			out = append(out, p)
		}
	}
	return out
}

// holds reports whether stored holds all of resolved the installed CRD can
// carry: it equals resolved without the dropped fields. leaned is true
// when that took dropping fields, i.e. stored and resolved differ.
func (s *crdSkew) holds(stored, resolved *slov1alpha1.NodeSLOSpec) (holds, leaned bool) {
	if sloconfig.SpecEqual(stored, resolved) {
		return true, false
	}
	dropped := s.Dropped()
	if len(dropped) == 0 {
		return false, false
	}
	without := sloconfig.WithoutPaths(resolved, dropped)
	return sloconfig.SpecEqual(stored, &without), true
}

// recheckDue reports, at most once per recheckEvery, that a decision leaning
// on the dropped fields should be checked again by a dry run.
func (s *crdSkew) recheckDue(now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if now.Sub(s.lastCheck) < s.recheckEvery {
		return false
	}
	s.lastCheck = now
	return true
}
