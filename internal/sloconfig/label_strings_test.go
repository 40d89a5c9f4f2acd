package sloconfig

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"
)

// decodedLabels is labels with every string in memory of its own, as a
// decoder hands them out.
func decodedLabels(kv ...string) map[string]string {
	out := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[strings.Clone(kv[i])] = strings.Clone(kv[i+1])
	}
	return out
}

func keyData(m map[string]string, k string) *byte {
	for key := range m {
		if key == k {
			return unsafe.StringData(key)
		}
	}
	return nil
}

// Equal keys and values of two nodes end up as one copy; a key with more
// distinct values than the bound keeps sharing those it shared and leaves
// the rest as they are, with every label unchanged.
func TestInternLabelsSharesCommonStringsWithinBounds(t *testing.T) {
	table := newLabelTable()
	a, b := decodedLabels("zone", "a", "host", "n-0"), decodedLabels("zone", "a", "host", "n-1")
	table.intern(a)
	table.intern(b)
	if unsafe.StringData(a["zone"]) != unsafe.StringData(b["zone"]) {
		t.Error("two nodes hold separate copies of an equal value")
	}
	if keyData(a, "zone") != keyData(b, "zone") || keyData(a, "host") != keyData(b, "host") {
		t.Error("two nodes hold separate copies of an equal key")
	}
	if a["host"] != "n-0" || b["host"] != "n-1" || len(a) != 2 || len(b) != 2 {
		t.Fatalf("labels changed: %v, %v", a, b)
	}

	for i := 2; i < maxSharedValuesPerKey+10; i++ {
		table.intern(decodedLabels("host", fmt.Sprintf("n-%d", i)))
	}
	if got := table.keys["host"].values; got != nil {
		t.Errorf("a key past %d distinct values still shares %d of them", maxSharedValuesPerKey, len(got))
	}
	late1, late2 := decodedLabels("host", "n-0"), decodedLabels("host", "n-0")
	table.intern(late1)
	table.intern(late2)
	if unsafe.StringData(late1["host"]) == unsafe.StringData(late2["host"]) || late1["host"] != "n-0" {
		t.Error("values of a key past the bound are still shared")
	}
	if keyData(late1, "host") != keyData(a, "host") {
		t.Error("the key of a key past its value bound is no longer shared")
	}
}

// Past maxSharedLabelKeys keys, a new key is left as decoded and the table
// does not grow.
func TestInternLabelsBoundsTheKeys(t *testing.T) {
	table := newLabelTable()
	for i := range maxSharedLabelKeys {
		table.intern(decodedLabels(fmt.Sprintf("key-%d", i), "v"))
	}
	x, y := decodedLabels("one-too-many", "v"), decodedLabels("one-too-many", "v")
	table.intern(x)
	table.intern(y)
	if len(table.keys) != maxSharedLabelKeys {
		t.Errorf("the table holds %d keys, want %d", len(table.keys), maxSharedLabelKeys)
	}
	if keyData(x, "one-too-many") == keyData(y, "one-too-many") || x["one-too-many"] != "v" {
		t.Error("a key past the bound is shared")
	}
}
