package controller

import (
	"fmt"
	"strings"
)

// maxNoteLength is the longest Event note the events.k8s.io API accepts.
const maxNoteLength = 1024

// joinNote joins messages with "; " and appends suffix, keeping as many
// whole messages as fit in one Event note and counting the rest, so that an
// operator sees the first problems in full and knows there are more
// (kubectl nodeslo validate lists them all).
func joinNote(messages []string, suffix string) string {
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
		if b.Len()+len(sep)+len(m)+len(more)+len(suffix) > maxNoteLength && i > 0 {
			fmt.Fprintf(&b, "; and %d more (kubectl nodeslo validate lists all)", len(messages)-i)
			break
		}
		b.WriteString(sep + m)
	}
	return truncate(b.String()+suffix, maxNoteLength)
}

// truncate cuts s to at most n bytes, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}
