package sloconfig

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEventNote(t *testing.T) {
	if got, want := EventNote([]string{"a: x", "b: y"}, "kept"), "a: x; b: y; kept"; got != want {
		t.Errorf("EventNote = %q, want %q", got, want)
	}
	if got, want := EventNote([]string{"only"}, ""), "only"; got != want {
		t.Errorf("EventNote = %q, want %q", got, want)
	}

	long := strings.Repeat("x", 400)
	got := EventNote([]string{long, long, long, long}, "kept")
	if len(got) > MaxEventNote {
		t.Fatalf("note of %d bytes exceeds the API's %d", len(got), MaxEventNote)
	}
	if !strings.Contains(got, "and 2 more (kubectl nodeslo validate lists all)") || !strings.HasSuffix(got, "; kept") {
		t.Errorf("note does not say how many messages were left out, or lost its suffix: %q", got)
	}
	if strings.Count(got, long) != 2 {
		t.Errorf("note should keep the first two messages whole: %q", got)
	}

	huge := strings.Repeat("y", 2*MaxEventNote)
	if got := EventNote([]string{huge}, ""); len(got) != MaxEventNote || !strings.HasSuffix(got, "...") {
		t.Errorf("a single oversized message must be cut to %d bytes with a mark, got %d bytes", MaxEventNote, len(got))
	}
}

// A note cut to the API's limit never splits a character.
func TestEventNoteCutsBetweenCharacters(t *testing.T) {
	got := EventNote([]string{strings.Repeat("é", MaxEventNote)}, "")
	if len(got) > MaxEventNote || !utf8.ValidString(got) || !strings.HasSuffix(got, "...") {
		t.Errorf("note of %d bytes, valid UTF-8 %t: %q", len(got), utf8.ValidString(got), got[len(got)-8:])
	}
}

func TestClipLine(t *testing.T) {
	line := "key: unknown field " + strings.Repeat("z", 300) + " ignored"
	if got := ClipLine(line); got != "key: unknown field "+strings.Repeat("z", 100)+"…(300 bytes) ignored" {
		t.Errorf("ClipLine = %q", got)
	}
}
