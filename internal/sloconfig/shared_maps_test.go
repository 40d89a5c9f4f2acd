package sloconfig

import (
	"reflect"
	"strconv"
	"testing"
)

// A full table starts afresh instead of growing: it never holds more than
// sharedMapsSize maps, and still shares after that.
func TestSharedMapsIsBounded(t *testing.T) {
	var s SharedMaps
	for i := range 3 * sharedMapsSize {
		s.Share(map[string]string{"k": strconv.Itoa(i)})
		if len(s.shared) > sharedMapsSize {
			t.Fatalf("the table holds %d maps", len(s.shared))
		}
	}
	first := map[string]string{"a": "1", "b": "2"}
	if got := s.Share(first); !same(got, first) {
		t.Fatal("the first map of its value is not the one shared")
	}
	if got := s.Share(map[string]string{"b": "2", "a": "1"}); !same(got, first) {
		t.Error("an equal map is not given the shared one")
	}
	if got := s.Share(map[string]string{"a": "1"}); same(got, first) {
		t.Error("a different map is given the shared one")
	}
}

func same(x, y map[string]string) bool {
	return reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer()
}
