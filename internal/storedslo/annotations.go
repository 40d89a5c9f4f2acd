package storedslo

import (
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The two annotations every write of a spec sets, and their values.

// SpecDigestAnnotation is set on a NodeSLO in the same request that writes
// its spec: the generation that write gives the NodeSLO and the digest of
// the spec it sends, as "<generation>/<digest>". While the NodeSLO is at
// that generation its spec is the one written, so the controller can cache
// and watch NodeSLOs as metadata only and still tell whether a node is up
// to date (docs/behaviour.md#what-the-controller-caches). Any later spec
// change (a hand edit) bumps the generation and voids the claim.
const SpecDigestAnnotation = "nodeslo.koordinator.sh/spec-digest"

// FormatSpecDigest is the value of SpecDigestAnnotation for a write that
// gives the NodeSLO generation and sends a spec of digest.
func FormatSpecDigest(generation int64, digest string) string {
	return strconv.FormatInt(generation, 10) + "/" + digest
}

// VouchedDigest returns the digest of the spec obj holds when its
// SpecDigestAnnotation vouches for it: the annotation is there, well
// formed, and names obj's generation. "" otherwise: the spec was never
// written with the annotation, or changed since.
func VouchedDigest(obj metav1.Object) string {
	generation, digest, ok := strings.Cut(obj.GetAnnotations()[SpecDigestAnnotation], "/")
	if !ok || digest == "" || generation != strconv.FormatInt(obj.GetGeneration(), 10) {
		return ""
	}
	return digest
}

// ConfigurationAnnotation is set on a NodeSLO each time this controller
// writes its spec: the short fingerprint (12 hex digits, as the rollout's
// messages show it) of the configuration the spec was resolved from, and
// the number of the revision in force then, as "<fingerprint>/<number>"
// (FormatConfiguration). A
// node a staged rollout holds may be written with the configuration in
// force for it, older than the one in force cluster-wide; after a restart
// this is how that configuration is found again
// (docs/rollout-design.md#where-the-decision-runs), which neither the spec's digest nor
// the time of the write can tell. Unlike SpecDigestAnnotation it outlives
// a hand edit of the spec: the node is then put back to that configuration.
const ConfigurationAnnotation = "nodeslo.koordinator.sh/configuration"

// FormatConfiguration is the value of ConfigurationAnnotation for a spec
// resolved from the configuration of short fingerprint from, written while
// the revision numbered under was in force (0: not known, left out).
func FormatConfiguration(from string, under int64) string {
	if under <= 0 {
		return from
	}
	return from + "/" + strconv.FormatInt(under, 10)
}

// ParseConfiguration reads a ConfigurationAnnotation ("", 0: none; a
// number that is not one is not known, 0).
func ParseConfiguration(value string) (from string, under int64) {
	from, number, _ := strings.Cut(value, "/")
	if n, err := strconv.ParseInt(number, 10, 64); err == nil && n > 0 {
		under = n
	}
	return from, under
}

// SpecWrittenAnnotation is set on a NodeSLO each time this controller
// writes its spec (RFC 3339 in nanoseconds; earlier versions wrote
// milliseconds, and before them seconds): the second of the write, or the
// time of the decision the write carries out when that is later
// (WrittenAt). It tells
// the health gate when a node was reached, so that only what went wrong
// after that counts against the change (judged in seconds, as conditions
// have them), and which nodes a halted rollout wrote; it survives a
// restart of the manager.
const SpecWrittenAnnotation = "nodeslo.koordinator.sh/spec-written-at"

// ParseWrittenAt reads a NodeSLO's SpecWrittenAnnotation (zero: none or unreadable).
func ParseWrittenAt(annotations map[string]string) time.Time {
	t, err := time.Parse(time.RFC3339, annotations[SpecWrittenAnnotation])
	if err != nil {
		return time.Time{}
	}
	return t
}

// writtenAtLayout is RFC 3339 with nanoseconds, which time.RFC3339 parses
// too: a reader of an earlier version reads it.
const writtenAtLayout = "2006-01-02T15:04:05.000000000Z07:00"

// FormatWrittenAt is the value of SpecWrittenAnnotation for a write at t.
func FormatWrittenAt(t time.Time) string { return t.UTC().Format(writtenAtLayout) }

// WrittenAt is the time a write at now, carrying out a decision made at
// decided, is stamped with: the second of the write, or the decision's
// time when that is later. So the nodes written in one second under one
// decision share one value, and the cache one annotation map for all of
// them (a map of their own costs about 500 bytes a node); no node is
// stamped before the decision it carries out, which is what tells, after
// a halt, the nodes the halted rollout wrote
// (docs/rollout.md#after-a-halt); and no node is stamped in a later
// second than its write, as the health gate, which judges in seconds,
// would take a condition that turned bad after the write, in its second,
// for one from before it. The decision's time is kept whole for that: a
// decision in the last millisecond of a second, rounded up, would name
// the next one.
func WrittenAt(now, decided time.Time) time.Time {
	if second := now.Truncate(time.Second); second.After(decided) {
		return second
	}
	return decided
}
