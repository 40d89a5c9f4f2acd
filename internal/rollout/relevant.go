package rollout

import "github.com/nodeslo/nodeslo-controller/internal/sloconfig"

// Relevant reports whether a ConfigMap with this data and these
// annotations asks for a staged rollout, or carries a record that must go
// now that it does not. The controller reads such a ConfigMap past its
// cache (docs/rollout-design.md#where-the-decision-runs).
func Relevant(data, annotations map[string]string) bool {
	_, key := data[string(sloconfig.KeyRollout)]
	_, record := annotations[RecordAnnotation]
	return key || record
}

// Paused reports whether a rollout under this key takes no step: the key
// says "paused": true, or it is invalid.
func Paused(load Key) bool {
	return load.Policy == nil || load.Policy.Paused
}

// ShortTarget abbreviates a target fingerprint for people, like a short
// commit hash.
func ShortTarget(f string) string {
	if len(f) > 12 {
		return f[:12]
	}
	return f
}
