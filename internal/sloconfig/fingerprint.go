package sloconfig

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
)

// fingerprint hashes what decides every node's spec: each key's state and
// its compiled values in rule order, keys in keyTable order, with selectors in their canonical
// string form. encoding/json writes struct fields in a fixed order and map
// keys sorted, and quantities canonically, so a ConfigMap edit that only
// reorders keys or changes whitespace leaves the fingerprint alone. Rule
// names are left out: they do not change any spec.
func fingerprint(c *Config) string {
	h := sha256.New()
	for _, r := range c.reports {
		_, _ = fmt.Fprintf(h, "%s=%s\n", r.Key, r.State)
	}
	for _, k := range keyTable {
		k.writeFingerprint(c, h)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func writeSection[V any](w io.Writer, s *section[V]) {
	enc := json.NewEncoder(w)
	// Encoding compiled values of known types cannot fail.
	_ = enc.Encode(s.fallback)
	for _, r := range s.rules {
		_, _ = fmt.Fprintf(w, "%q ", r.selector.String())
		_ = enc.Encode(r.value)
	}
	_, _ = fmt.Fprintln(w, "--")
}
