package main

import (
	"slices"
	"testing"
)

// Floor and manager take turns going first; with koord-manager the three
// rotate, each first, second and last once in three repetitions.
func TestSidesInOrder(t *testing.T) {
	for _, c := range []struct {
		rep         int
		koordinator bool
		want        []string
	}{
		{1, false, []string{sideFloor, sideManager}},
		{2, false, []string{sideManager, sideFloor}},
		{3, false, []string{sideFloor, sideManager}},
		{1, true, []string{sideFloor, sideManager, sideKoordinator}},
		{2, true, []string{sideManager, sideKoordinator, sideFloor}},
		{3, true, []string{sideKoordinator, sideFloor, sideManager}},
		{4, true, []string{sideFloor, sideManager, sideKoordinator}},
	} {
		if got := sidesInOrder(c.rep, c.koordinator); !slices.Equal(got, c.want) {
			t.Errorf("repetition %d, koord-manager %v: %v, want %v", c.rep, c.koordinator, got, c.want)
		}
	}
}
