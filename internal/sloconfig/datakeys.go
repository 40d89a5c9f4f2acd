package sloconfig

import (
	"fmt"
	"slices"
	"strings"
)

// maxKeyTypoDistance is how many single-byte edits a ConfigMap key may be
// away from one of Keys to be taken for a typo of it. Two catches a slip of
// the finger, a swapped pair of letters, "_" written for "-" twice, and a
// wrong case (compared case-insensitively), while every other key of a
// Koordinator slo-controller-config (colocation-config,
// cpu-normalization-config, ...) stays farther away and raises nothing.
const maxKeyTypoDistance = 2

// DataKeyWarnings returns, sorted, warnings about ConfigMap keys the
// controller silently ignores although they were probably meant for it: a
// data key a small edit away from one of Keys ("resource-threshold-confg"),
// and one of Keys under binaryData, which the controller does not read.
// The retired rollout key (KeyRollout) counts as known too: it gets an
// error of its own.
// Other keys are left alone: the ConfigMap is shared with other components.
func DataKeyWarnings(data map[string]string, binaryData map[string][]byte) []string {
	var warnings []string
	for key := range data {
		if near := nearKey(key); near != "" {
			warnings = append(warnings, fmt.Sprintf(
				"data key %q is ignored: did you mean %q?", key, near))
		}
	}
	for key := range binaryData {
		if slices.Contains(knownKeys, Key(key)) {
			warnings = append(warnings, fmt.Sprintf(
				"binaryData key %q is ignored: the configuration is read from data only; move it there as a string", key))
		} else if near := nearKey(key); near != "" {
			warnings = append(warnings, fmt.Sprintf(
				"binaryData key %q is ignored: did you mean %q, under data?", key, near))
		}
	}
	slices.Sort(warnings)
	return warnings
}

// knownKeys are the keys the controller reads: the spec sections and the
// rollout policy.
var knownKeys = slices.Concat(Keys, []Key{KeyRollout})

// nearKey returns the known key that name is a likely typo of, or "" when
// name is a known key or none is close.
func nearKey(name string) Key {
	if slices.Contains(knownKeys, Key(name)) {
		return ""
	}
	lower := strings.ToLower(name)
	for _, k := range knownKeys {
		// The length check keeps a huge key from costing a full edit
		// distance computation: it cannot be close.
		if d := len(lower) - len(k); d > maxKeyTypoDistance || d < -maxKeyTypoDistance {
			continue
		}
		if editDistance(lower, string(k)) <= maxKeyTypoDistance {
			return k
		}
	}
	return ""
}
