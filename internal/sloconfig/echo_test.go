package sloconfig

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCutAt(t *testing.T) {
	if got := CutAt("False", 64); got != "False" {
		t.Errorf("CutAt of a short text = %q, want it whole", got)
	}
	exact := strings.Repeat("x", 64)
	if got := CutAt(exact, 64); got != exact {
		t.Errorf("CutAt of a text of exactly the limit = %q, want it whole", got)
	}
	// 300 KiB of a three-byte character: the cut falls between characters.
	long := strings.Repeat("€", 100<<10)
	got := CutAt(long, 64)
	if len(got) > 64 {
		t.Errorf("CutAt = %d bytes, more than the limit 64", len(got))
	}
	if !strings.HasSuffix(got, "… (cut at 64 bytes)") {
		t.Errorf("CutAt = %q, want it to say where it was cut", got)
	}
	if !utf8.ValidString(got) || !strings.HasPrefix(got, "€") {
		t.Errorf("CutAt = %q, want a valid prefix of the text", got)
	}
	if again := CutAt(got, 64); again != got {
		t.Errorf("CutAt of a cut text = %q, want it unchanged (%q)", again, got)
	}
}
