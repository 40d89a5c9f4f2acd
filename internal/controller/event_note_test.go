package controller

import (
	"strings"
	"testing"
)

func TestJoinNote(t *testing.T) {
	if got, want := joinNote([]string{"a: x", "b: y"}, "kept"), "a: x; b: y; kept"; got != want {
		t.Errorf("joinNote = %q, want %q", got, want)
	}
	if got, want := joinNote([]string{"only"}, ""), "only"; got != want {
		t.Errorf("joinNote = %q, want %q", got, want)
	}

	long := strings.Repeat("x", 400)
	got := joinNote([]string{long, long, long, long}, "kept")
	if len(got) > maxNoteLength {
		t.Fatalf("note of %d bytes exceeds the API's %d", len(got), maxNoteLength)
	}
	if !strings.Contains(got, "and 2 more (kubectl nodeslo validate lists all)") || !strings.HasSuffix(got, "; kept") {
		t.Errorf("note does not say how many messages were left out, or lost its suffix: %q", got)
	}
	if strings.Count(got, long) != 2 {
		t.Errorf("note should keep the first two messages whole: %q", got)
	}

	huge := strings.Repeat("y", 2*maxNoteLength)
	if got := joinNote([]string{huge}, ""); len(got) != maxNoteLength || !strings.HasSuffix(got, "...") {
		t.Errorf("a single oversized message must be cut to %d bytes with a mark, got %d bytes", maxNoteLength, len(got))
	}
}
