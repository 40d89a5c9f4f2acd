package rollout

// Paused reports whether a rollout under this strategy takes no step:
// spec.paused is true, or the strategy is invalid.
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
