package rollout

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// The revision history (docs/rollout.md#revision-history-and-undo): every
// configuration put in force is kept as a ControllerRevision in the
// ConfigMap's namespace, so that `kubectl nodeslo rollout undo` can write an
// earlier one back. The labels and annotations below are how a
// ControllerRevision says which ConfigMap it belongs to and what became of
// its rollout; the revision's data is the ConfigMap data that loads into
// the configuration (sloconfig.Config.DataInForce).
const (
	// RevisionConfigMapLabel names the ConfigMap a revision belongs to; the
	// history is listed by it.
	RevisionConfigMapLabel = "nodeslo.koordinator.sh/configmap"

	annotationPrefix           = "nodeslo.koordinator.sh/"
	fingerprintAnnotation      = annotationPrefix + "fingerprint"
	configMapVersionAnnotation = annotationPrefix + "configmap-resource-version"
	changedByAnnotation        = annotationPrefix + "changed-by"
	// ChangeCauseAnnotation on the ConfigMap says why it was changed, as
	// on a Deployment; each revision keeps the value it had.
	ChangeCauseAnnotation       = "kubernetes.io/change-cause"
	outcomeAnnotation           = annotationPrefix + "outcome"
	reachedAnnotation           = annotationPrefix + "reached"
	rolloutKeyAnnotation        = annotationPrefix + "rollout-config"
	revisionNameNumberSeparator = "-r"
)

// Outcome is what became of the rollout of a revision.
type Outcome string

// Final reports whether nothing more can happen to the outcome of a
// revision in force: only a rollout in progress or halted moves on.
func (o Outcome) Final() bool { return o != OutcomeInProgress && o != OutcomeHalted }

const (
	// OutcomeInProgress: the revision is in force and its staged rollout
	// has pending nodes.
	OutcomeInProgress Outcome = "InProgress"
	// OutcomeCompleted: every node got the revision's configuration.
	OutcomeCompleted Outcome = "Completed"
	// OutcomeSuperseded: a newer revision came before the rollout completed.
	OutcomeSuperseded Outcome = "Superseded"
	// OutcomeAllAtOnce: put in force without a strategy, so every node
	// got it at once.
	OutcomeAllAtOnce Outcome = "AllAtOnce"
	// OutcomeHalted: the strategy's health gate halted the rollout
	// (docs/rollout.md#health-gates); a resume makes it InProgress again,
	// a newer revision (an undo, a revert) leaves it Halted.
	OutcomeHalted Outcome = "Halted"
)

// Revision is one configuration put in force.
type Revision struct {
	// Number counts the configurations put in force, from 1.
	Number int64
	// Name is the ControllerRevision's name (empty until created).
	Name    string
	Created time.Time
	// Fingerprint identifies the configuration (sloconfig.Config.Fingerprint).
	Fingerprint string
	// Data is the ConfigMap data that loads into it.
	Data map[string]string
	// ConfigMapVersion is the ConfigMap's resourceVersion it was read at,
	// ChangedBy the field manager that last wrote the ConfigMap, and
	// ChangeCause the ConfigMap's ChangeCauseAnnotation then (as with
	// kubectl's Deployment history).
	ConfigMapVersion, ChangedBy, ChangeCause string
	Outcome                                  Outcome
	// RolloutKey is the strategy's JSON (StrategyJSON) it was rolled out
	// under ("": at once), kept in the annotation
	// nodeslo.koordinator.sh/rollout-config, named when the policy was the
	// retired rollout key.
	RolloutKey string
	// Reached is the number of pending nodes its rollout had reached when
	// the outcome was last set; -1 when not counted (all at once).
	Reached int
}

// revisionData is the JSON of a ControllerRevision's data.
type revisionData struct {
	Data map[string]string `json:"data"`
}

// RevisionName is the name of revision number of the ConfigMap named cm.
func RevisionName(cm string, number int64) string {
	return cm + revisionNameNumberSeparator + strconv.FormatInt(number, 10)
}

// Object renders r as the ControllerRevision that keeps it, in the
// ConfigMap's namespace. It has no owner: the history must outlive a
// deleted ConfigMap, as an undo is what brings it back.
func (r Revision) Object(cm types.NamespacedName) *appsv1.ControllerRevision {
	// A map of strings always marshals.
	raw, _ := json.Marshal(revisionData{Data: r.Data})
	return &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Name:        RevisionName(cm.Name, r.Number),
			Namespace:   cm.Namespace,
			Labels:      map[string]string{RevisionConfigMapLabel: cm.Name},
			Annotations: r.annotations(),
		},
		Data:     runtime.RawExtension{Raw: raw},
		Revision: r.Number,
	}
}

// MaxChangeCause bounds the change-cause a revision copies from the
// ConfigMap, whose own annotations may hold 256 KiB: a revision's
// annotations have that much in all, and the change-cause shares them with
// the strategy (MaxKeyBytes). A kubectl command line fits.
const MaxChangeCause = 1024

// annotations are the revision's annotations, each bounded: the strategy
// by keptKey, the change-cause cut at MaxChangeCause (saying so).
func (r Revision) annotations() map[string]string {
	a := map[string]string{
		fingerprintAnnotation:      r.Fingerprint,
		configMapVersionAnnotation: r.ConfigMapVersion,
		changedByAnnotation:        r.ChangedBy,
	}
	if r.ChangeCause != "" {
		a[ChangeCauseAnnotation] = sloconfig.CutAt(r.ChangeCause, MaxChangeCause)
	}
	if r.RolloutKey != "" {
		a[rolloutKeyAnnotation] = keptKey(r.RolloutKey)
	}
	maps.Copy(a, OutcomeAnnotations(r.Outcome, r.Reached))
	return a
}

// OutcomeAnnotations are the annotations that record an outcome; patching
// them onto a revision's ControllerRevision sets its outcome.
func OutcomeAnnotations(outcome Outcome, reached int) map[string]string {
	a := map[string]string{outcomeAnnotation: string(outcome)}
	if reached >= 0 {
		a[reachedAnnotation] = strconv.Itoa(reached)
	}
	return a
}

// RevisionOf reads a ControllerRevision of the history. Its annotations are
// read as written; a reached count that is not a number of nodes is not
// counted (-1).
func RevisionOf(cr *appsv1.ControllerRevision) (Revision, error) {
	var d revisionData
	if err := json.Unmarshal(cr.Data.Raw, &d); err != nil {
		return Revision{}, fmt.Errorf("ControllerRevision %s/%s: its data is not a revision: %w", cr.Namespace, cr.Name, err)
	}
	a := cr.Annotations
	r := Revision{
		Number: cr.Revision, Name: cr.Name, Created: cr.CreationTimestamp.Time,
		Fingerprint: a[fingerprintAnnotation], Data: d.Data,
		ConfigMapVersion: a[configMapVersionAnnotation], ChangedBy: a[changedByAnnotation],
		ChangeCause: a[ChangeCauseAnnotation], RolloutKey: a[rolloutKeyAnnotation],
		Outcome: Outcome(a[outcomeAnnotation]), Reached: -1,
	}
	// A count is never negative: any other value is no count.
	if v, err := strconv.Atoi(a[reachedAnnotation]); err == nil && v >= 0 {
		r.Reached = v
	}
	if r.Data == nil {
		r.Data = map[string]string{}
	}
	return r, nil
}

// SortRevisions orders revisions oldest first, by number.
func SortRevisions(revisions []Revision) {
	slices.SortFunc(revisions, func(a, b Revision) int { return int(a.Number - b.Number) })
}

// InForce is the configuration now in force, as the history records it.
type InForce struct {
	Fingerprint string
	// Data is what loads into it; Representable is false when no data
	// does (a key frozen after a restart), and no revision is made then.
	Data          map[string]string
	Representable bool
	// ConfigMapVersion and ChangedBy describe the ConfigMap it was read from.
	ConfigMapVersion, ChangedBy string
	// RolloutKey is the strategy's JSON it rolls out under ("": at once).
	RolloutKey string
	// Held are the configurations still in force for nodes a rollout
	// holds (Gate.Bases): their revisions are never pruned, or a held
	// node's configuration would be lost to a restart (docs/rollout-design.md#where-the-decision-runs).
	Held []string
}

// HistoryChange is what keeping the history needs written: a revision to
// create, outcomes to set on existing ones, and revisions to delete.
type HistoryChange struct {
	Create   *Revision
	Outcomes []OutcomeChange
	Delete   []string
	// KeptFor are the held configurations (InForce.Held) whose revisions
	// stay beyond the limit: once none of them is held any more, the
	// history is kept again (HeldReleased) so that it shrinks to its limit.
	KeptFor []string
}

// HeldReleased reports whether a configuration whose revision was kept
// beyond the limit for held nodes (kept, a HistoryChange's KeptFor) is no
// longer in force for any node held now: the history is over its limit and
// keeping it again prunes that revision.
func HeldReleased(kept, held []string) bool {
	return slices.ContainsFunc(kept, func(f string) bool { return !slices.Contains(held, f) })
}

// OutcomeChange sets the outcome of the ControllerRevision Name.
type OutcomeChange struct {
	Name    string
	Outcome Outcome
	Reached int
}

// Annotations are the annotations to patch onto the revision.
func (c OutcomeChange) Annotations() map[string]string {
	return OutcomeAnnotations(c.Outcome, c.Reached)
}

// KeepHistory decides how the history (existing, any order) records the
// configuration in force: a new revision when it differs from the newest
// one, the newest marked superseded if its rollout was still in progress,
// and the oldest deleted beyond limit, but for the newest revision of each
// configuration now.Held names. A configuration equal to the newest
// revision's (a restart, an edit that changes nothing in force) adds none.
func KeepHistory(existing []Revision, now InForce, limit int) HistoryChange {
	var change HistoryChange
	revisions := slices.Clone(existing)
	SortRevisions(revisions)
	var newest *Revision
	if len(revisions) > 0 {
		newest = &revisions[len(revisions)-1]
	}
	if now.Representable && (newest == nil || newest.Fingerprint != now.Fingerprint) {
		next := Revision{
			Number: 1, Fingerprint: now.Fingerprint, Data: now.Data,
			ConfigMapVersion: now.ConfigMapVersion, ChangedBy: now.ChangedBy,
			Outcome: OutcomeInProgress, Reached: 0, RolloutKey: now.RolloutKey,
		}
		if now.RolloutKey == "" {
			next.Outcome, next.Reached = OutcomeAllAtOnce, -1
		}
		if newest != nil {
			next.Number = newest.Number + 1
			if newest.Outcome == OutcomeInProgress {
				change.Outcomes = append(change.Outcomes,
					OutcomeChange{Name: newest.Name, Outcome: OutcomeSuperseded, Reached: newest.Reached})
			}
		}
		change.Create = &next
		revisions = append(revisions, next)
	}
	newestOf := map[string]int64{}
	for _, r := range revisions {
		newestOf[r.Fingerprint] = r.Number
	}
	for _, r := range revisions[:max(len(revisions)-limit, 0)] {
		if slices.Contains(now.Held, r.Fingerprint) && newestOf[r.Fingerprint] == r.Number {
			change.KeptFor = append(change.KeptFor, r.Fingerprint)
			continue
		}
		change.Delete = append(change.Delete, r.Name)
	}
	return change
}

// Progress is the outcome of the revision in force under a strategy,
// from the rollout's figures.
func Progress(f *Figures) (Outcome, int) {
	if f.Halted {
		return OutcomeHalted, f.Reached
	}
	if f.InProgress {
		return OutcomeInProgress, f.Reached
	}
	return OutcomeCompleted, f.Reached
}

// ChangedKeys lists, sorted, the keys whose value differs between two
// revisions' data (a key present in one only included).
func ChangedKeys(before, after map[string]string) []string {
	var keys []string
	for k, v := range after {
		if old, ok := before[k]; !ok || old != v {
			keys = append(keys, k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// LastWriter names the field manager that last wrote the ConfigMap, from
// its managedFields: the newest entry but those of except (the
// controller's own record writes), an entry owning data winning a tie
// (the times have a resolution of one second). Empty when none is left
// (managedFields stripped). A write that only removes keys owns no field
// of data, so the newest entry is what names its writer.
func LastWriter(entries []metav1.ManagedFieldsEntry, except string) string {
	name, newest, ownsData := "", time.Time{}, false
	for _, e := range entries {
		if e.Time == nil || e.Manager == except {
			continue
		}
		data := false
		if e.FieldsV1 != nil {
			var owned map[string]json.RawMessage
			if json.Unmarshal(e.FieldsV1.GetRawBytes(), &owned) == nil {
				_, data = owned["f:data"]
			}
		}
		t := e.Time.Time
		if name == "" || t.After(newest) || (t.Equal(newest) && data && !ownsData) {
			name, newest, ownsData = e.Manager, t, data
		}
	}
	return name
}
