package sloconfig

// load compiles every key of data, in keyTable order. A key whose new value
// is invalid keeps the value previous had for it (last good), or, when
// previous knows no good value either, freezes: Resolve then keeps each
// node's current value of that section (docs/behaviour.md#bad-input).
func load(data map[string]string, previous *Config) *Config {
	c := &Config{reports: make([]SectionReport, 0, len(keyTable)), source: map[Key]string{}}
	for _, k := range keyTable {
		c.reports = append(c.reports, k.load(c, data, previous))
	}
	c.fingerprint = fingerprint(c)
	return c
}
