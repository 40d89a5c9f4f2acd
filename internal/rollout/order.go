package rollout

import (
	"cmp"
	"crypto/sha256"
	"slices"
)

// order sorts node names in the rollout's stable order: by a hash of the
// name and the target fingerprint. The same change always goes through the
// fleet in the same order, whoever leads and however often it restarts,
// while different changes start on different nodes, so that no node is
// always the first to take every change.
func order(names []string, target string) []string {
	type keyed struct {
		hash [sha256.Size]byte
		name string
	}
	keys := make([]keyed, len(names))
	for i, name := range names {
		keys[i] = keyed{hash: sha256.Sum256([]byte(name + "\x00" + target)), name: name}
	}
	slices.SortFunc(keys, func(a, b keyed) int {
		return cmp.Or(cmp.Compare(string(a.hash[:]), string(b.hash[:])), cmp.Compare(a.name, b.name))
	})
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.name
	}
	return out
}

// trueFirst orders what holds before what does not, for a sort.
func trueFirst(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}
