package sloconfig

import "sync"

// Bounds of the label string table: past them strings are left as decoded,
// so that a cluster with unusual labels cannot grow the table without end.
const (
	// maxSharedLabelKeys bounds the label keys shared.
	maxSharedLabelKeys = 256
	// maxSharedValuesPerKey is how many distinct values of one key are
	// shared. A key with more (a hostname, a serial number) has a value of
	// its own on almost every node, which sharing would only duplicate in
	// the table; its values are left as decoded from then on.
	maxSharedValuesPerKey = 128
)

// labelStrings is the table InternLabels shares label strings through.
// It is a plain locked map rather than the standard library's unique
// package: the manager's restart profile showed unique.Make at an eighth of
// its CPU at 50,000 nodes, most of it spent on per-node values (hostnames)
// that sharing cannot save anything on.
var labelStrings = newLabelTable()

type labelTable struct {
	mu   sync.Mutex
	keys map[string]*labelKey
}

func newLabelTable() *labelTable { return &labelTable{keys: map[string]*labelKey{}} }

// labelKey is a key's shared copy and its values' shared copies; values
// is nil once the key has had too many distinct values to be worth sharing.
type labelKey struct {
	key    string
	values map[string]string
}

// InternLabels replaces, in place, every key and value of labels with its
// shared copy: across a cluster's nodes labels are mostly the same few
// strings (zone, instance type, pool), which a decoder allocates once per
// node. Assigning to a key present stores the new key too, so no second
// map is allocated. The table keeps the strings it shares while the
// process lives; its bounds keep it small.
func InternLabels(labels map[string]string) { labelStrings.intern(labels) }

func (t *labelTable) intern(labels map[string]string) {
	if len(labels) == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, v := range labels {
		if key := t.key(k); key != nil {
			labels[key.key] = key.value(v)
		}
	}
}

// key returns the entry of k, adding it while the table has room; nil
// when it has none.
func (t *labelTable) key(k string) *labelKey {
	if key, ok := t.keys[k]; ok {
		return key
	}
	if len(t.keys) >= maxSharedLabelKeys {
		return nil
	}
	key := &labelKey{key: k, values: map[string]string{}}
	t.keys[k] = key
	return key
}

// value returns the shared copy of v, or v itself when the key's values
// are not shared.
func (k *labelKey) value(v string) string {
	if k.values == nil {
		return v
	}
	if shared, ok := k.values[v]; ok {
		return shared
	}
	if len(k.values) >= maxSharedValuesPerKey {
		k.values = nil
		return v
	}
	k.values[v] = v
	return v
}
