package controller

import "testing"

// A full pool starts afresh instead of growing: it never holds more than
// internPoolSize values, and still interns after that.
func TestInternPoolIsBounded(t *testing.T) {
	var p internPool[int, int]
	for i := range 3 * internPoolSize {
		p.intern(i, i)
		if len(p.shared) > internPoolSize {
			t.Fatalf("the pool holds %d values", len(p.shared))
		}
	}
	if got := p.intern(-1, 1); got != 1 {
		t.Fatalf("intern(-1, 1) = %d", got)
	}
	if got := p.intern(-1, 2); got != 1 {
		t.Errorf("a second intern of key -1 gave %d, want the first value, 1", got)
	}
}
