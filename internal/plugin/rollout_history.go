package plugin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// History is the revision history of a ConfigMap
// (docs/rollout.md#revision-history-and-undo), oldest first. The newest
// revision is the configuration in force.
type History struct {
	ConfigMap ConfigMapRef
	Revisions []rollout.Revision
}

// FetchHistory lists the ControllerRevisions the controller keeps for the
// ConfigMap.
func FetchHistory(ctx context.Context, c client.Reader, ref ConfigMapRef) (History, error) {
	list := &appsv1.ControllerRevisionList{}
	if err := c.List(ctx, list, client.InNamespace(ref.Namespace),
		client.MatchingLabels{rollout.RevisionConfigMapLabel: ref.Name}); err != nil {
		return History{}, fmt.Errorf("listing the revisions of ConfigMap %s: %w", ref, err)
	}
	h := History{ConfigMap: ref}
	for i := range list.Items {
		rev, err := rollout.RevisionOf(&list.Items[i])
		if err != nil {
			return History{}, err
		}
		h.Revisions = append(h.Revisions, rev)
	}
	rollout.SortRevisions(h.Revisions)
	return h, nil
}

// InForce is the newest revision, the configuration in force; nil when
// the history is empty.
func (h History) InForce() *rollout.Revision {
	if len(h.Revisions) == 0 {
		return nil
	}
	return &h.Revisions[len(h.Revisions)-1]
}

// Find returns revision number n, or an error naming the numbers kept.
func (h History) Find(n int64) (rollout.Revision, error) {
	for _, r := range h.Revisions {
		if r.Number == n {
			return r, nil
		}
	}
	return rollout.Revision{}, fmt.Errorf("revision %d of ConfigMap %s is not kept; kept: %s", n, h.ConfigMap, h.numbers())
}

// Previous is the newest revision before the one in force whose
// configuration differs from it: what `rollout undo` goes back to.
func (h History) Previous() (rollout.Revision, error) {
	now := h.InForce()
	if now == nil {
		return rollout.Revision{}, fmt.Errorf("ConfigMap %s has no revision history yet", h.ConfigMap)
	}
	if previous, ok := rollout.PreviousRevision(h.Revisions); ok {
		return previous, nil
	}
	return rollout.Revision{}, fmt.Errorf("ConfigMap %s has no earlier revision than %d to go back to",
		h.ConfigMap, now.Number)
}

func (h History) numbers() string {
	if len(h.Revisions) == 0 {
		return "none"
	}
	var s []string
	for _, r := range h.Revisions {
		s = append(s, fmt.Sprint(r.Number))
	}
	return strings.Join(s, ", ")
}

// Write lists the revisions: number, age, who changed the ConfigMap, the
// keys changed from the revision before, the nodes reached, the outcome
// and the change cause.
func (h History) Write(w io.Writer, now time.Time) error { return h.write(w, now, false) }

// WriteWide is Write with, before the change cause (free text, last),
// each revision's configuration, as rollout status names it, and its
// ControllerRevision: -o wide.
func (h History) WriteWide(w io.Writer, now time.Time) error { return h.write(w, now, true) }

func (h History) write(w io.Writer, now time.Time, wide bool) error {
	if len(h.Revisions) == 0 {
		_, err := fmt.Fprintf(w, "ConfigMap %s has no revision history yet "+
			"(the controller records one per configuration it puts in force)\n", h.ConfigMap)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	wideHeaders := ""
	if wide {
		wideHeaders = "CONFIGURATION\tCONTROLLERREVISION\t"
	}
	_, _ = fmt.Fprintln(tw, "REVISION\tAGE\tCHANGED BY\tKEYS CHANGED\tREACHED\tOUTCOME\t"+wideHeaders+"CHANGE-CAUSE")
	for i, r := range h.Revisions {
		keys := "(first kept)"
		if i > 0 {
			keys = strings.Join(rollout.ChangedKeys(h.Revisions[i-1].Data, r.Data), ",")
		}
		reached := "-"
		if r.Reached >= 0 {
			reached = fmt.Sprint(r.Reached)
		}
		outcome := string(r.Outcome)
		if i == len(h.Revisions)-1 {
			outcome += " (in force)"
		}
		fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t", r.Number, duration.HumanDuration(now.Sub(r.Created)),
			orDash(r.ChangedBy), orDash(keys), reached, outcome)
		if wide {
			fprintf(tw, "%s\t%s\t", orDash(rollout.ShortTarget(r.Fingerprint)), orDash(r.Name))
		}
		fprintf(tw, "%s\n", orDash(r.ChangeCause))
	}
	return tw.Flush()
}

// WriteRevision prints one revision's data, key by key, then how the
// configuration in force would change if it were put back (its diff
// against the one in force, field by field).
func (h History) WriteRevision(w io.Writer, r rollout.Revision) error {
	var b bytes.Buffer
	fprintf(&b, "Revision %d of ConfigMap %s, recorded at ConfigMap resourceVersion %s by %s, outcome %s\n",
		r.Number, h.ConfigMap, orDash(r.ConfigMapVersion), orDash(r.ChangedBy), r.Outcome)
	fprintf(&b, "data:\n")
	for _, k := range slices.Sorted(maps.Keys(r.Data)) {
		fprintf(&b, "  %s: |\n", k)
		for line := range strings.SplitSeq(strings.TrimRight(r.Data[k], "\n"), "\n") {
			fprintf(&b, "    %s\n", line)
		}
	}
	now := h.InForce()
	if now.Number == r.Number || now.Fingerprint == r.Fingerprint {
		fprintf(&b, "\nThe configuration in force (revision %d) is this one.\n", now.Number)
	} else {
		fprintf(&b, "\nPutting it back would change, from revision %d in force:\n", now.Number)
		for _, c := range DataChanges(now.Data, r.Data) {
			fprintf(&b, "  %s: %s -> %s\n", c.Path, clip(c.Old), clip(c.New))
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// DataChanges compares two ConfigMaps' data key by key, field by field
// where a value is JSON, and whole where it is not.
func DataChanges(before, after map[string]string) []FieldChange {
	var changes []FieldChange
	for _, k := range rollout.ChangedKeys(before, after) {
		diffTrees(field.NewPath(k), decodeValue(before, k), decodeValue(after, k), &changes)
	}
	return changes
}

// decodeValue is data[k] as JSON values (nil when absent), or the string
// itself when it is not JSON.
func decodeValue(data map[string]string, k string) any {
	raw, ok := data[k]
	if !ok {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return raw
	}
	return v
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
