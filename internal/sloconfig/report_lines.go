package sloconfig

import (
	"fmt"
	"strings"
)

// The words of a validation report, shared by everything that shows one:
// `kubectl nodeslo validate` prints the lines, the admission webhook answers
// with them, and the config-cache controller records them as Events. One
// place, so that a person reads the same text from all three.

// KeyLines is what one ConfigMap key reports, in words.
type KeyLines struct {
	Key Key
	// Errors and Warnings are one message each, prefixed with the key.
	Errors, Warnings []string
	// Consequence says what rejecting the key means for the NodeSLOs; it
	// is set only when Errors is not empty.
	Consequence string
}

// ReportByKey renders the reports of every key, in Keys order, then the
// retired rollout key's lines (rollout.RetiredKeyLines renders them). Keys
// with nothing to report are left out.
func ReportByKey(cfg *Config, rollout KeyLines) []KeyLines {
	var out []KeyLines
	add := func(l KeyLines) {
		if len(l.Errors) == 0 {
			l.Consequence = ""
		}
		if len(l.Errors)+len(l.Warnings) > 0 {
			out = append(out, l)
		}
	}
	for _, r := range cfg.Reports() {
		add(KeyLines{Key: r.Key, Errors: r.Messages(), Warnings: r.WarningMessages(),
			Consequence: rejectionConsequence(r.State)})
	}
	add(rollout)
	return out
}

// rejectionConsequence says what a rejected key in state means for the
// NodeSLOs (docs/behaviour.md).
func rejectionConsequence(state SectionState) string {
	switch state {
	case StateLastGood:
		return "the key is rejected as a whole and its last good value stays in force"
	case StateFrozen:
		return "the key is rejected as a whole; existing NodeSLOs keep their current value of this section " +
			"and new nodes get the defaults"
	default:
		return "the key is rejected"
	}
}

// ReportLines renders the reports of every key, the retired rollout key
// last, as lines: one per error, one per warning (without a "warning: "
// prefix), each clipped by ClipLine.
func ReportLines(cfg *Config, rollout KeyLines) (errs, warnings []string) {
	for _, l := range ReportByKey(cfg, rollout) {
		errs = append(errs, l.Errors...)
		warnings = append(warnings, l.Warnings...)
	}
	clipLines(errs)
	clipLines(warnings)
	return errs, warnings
}

// DataKeyWarningLines renders DataKeyWarnings as lines, clipped by ClipLine.
func DataKeyWarningLines(data map[string]string, binaryData map[string][]byte) []string {
	return clipLines(DataKeyWarnings(data, binaryData))
}

// clipLines clips every line in place and returns lines.
func clipLines(lines []string) []string {
	for i := range lines {
		lines[i] = ClipLine(lines[i])
	}
	return lines
}

// maxLineBytes caps a report line whose words are all short.
const maxLineBytes = 2000

// ClipLine clips every run of non-space bytes of a line longer than twice
// maxEchoed (an echoed name or value: the engine's own words are short, and
// a value clipped already stays as it is), then the line as a whole.
func ClipLine(line string) string {
	if len(line) <= 2*maxEchoed {
		return line
	}
	var b strings.Builder
	for len(line) > 0 {
		end := strings.IndexAny(line, " \t\n")
		if end < 0 {
			end = len(line)
		}
		if word := line[:end]; len(word) > 2*maxEchoed {
			b.WriteString(echo(word))
		} else {
			b.WriteString(word)
		}
		if end < len(line) {
			b.WriteByte(line[end])
			end++
		}
		line = line[end:]
	}
	return Truncate(b.String(), maxLineBytes)
}

// MaxEventNote is the longest Event note the events.k8s.io API accepts.
const MaxEventNote = 1024

// EventNote joins messages with "; " and appends suffix, keeping as many
// whole messages as fit in one Event note and counting the rest, so that an
// operator sees the first problems in full and knows there are more
// (kubectl nodeslo validate lists them all).
func EventNote(messages []string, suffix string) string {
	if suffix != "" {
		suffix = "; " + suffix
	}
	var b strings.Builder
	for i, m := range messages {
		sep := ""
		if i > 0 {
			sep = "; "
		}
		more := ""
		if rest := len(messages) - i - 1; rest > 0 {
			more = fmt.Sprintf("; and %d more (kubectl nodeslo validate lists all)", rest)
		}
		if b.Len()+len(sep)+len(m)+len(more)+len(suffix) > MaxEventNote && i > 0 {
			fmt.Fprintf(&b, "; and %d more (kubectl nodeslo validate lists all)", len(messages)-i)
			break
		}
		b.WriteString(sep + m)
	}
	return Shorten(b.String()+suffix, MaxEventNote)
}
