package sloconfig

// load compiles every key of data. A key whose new value is invalid keeps
// the value previous had for it (last good), or, when previous knows no
// good value either, freezes: Resolve then keeps each node's current value
// of that section (docs/behaviour.md#bad-input).
func load(data map[string]string, previous *Config) *Config {
	c := &Config{reports: make([]SectionReport, 0, len(Keys))}
	c.threshold = loadKey(c, data, previous, KeyResourceThreshold, thresholdKind.compile, thresholdKind.defaultSection(),
		func(p *Config) section[*thresholdStrategy] { return p.threshold })
	c.qos = loadKey(c, data, previous, KeyResourceQOS, qosKind.compile, qosKind.defaultSection(),
		func(p *Config) section[*qosStrategy] { return p.qos })
	c.burst = loadKey(c, data, previous, KeyCPUBurst, burstKind.compile, burstKind.defaultSection(),
		func(p *Config) section[*burstStrategy] { return p.burst })
	c.system = loadKey(c, data, previous, KeySystem, systemKind.compile, systemKind.defaultSection(),
		func(p *Config) section[*systemStrategy] { return p.system })
	c.hostApps = loadKey(c, data, previous, KeyHostApplication, compileHostApplications, section[hostAppList]{},
		func(p *Config) section[hostAppList] { return p.hostApps })
	c.fingerprint = fingerprint(c)
	return c
}

// loadKey compiles one key and decides its state, appending its report to c.
func loadKey[V any](c *Config, data map[string]string, previous *Config, key Key,
	compile func(string) compiled[V], defaults section[V], prior func(*Config) section[V]) section[V] {
	report := SectionReport{Key: key, State: StateDefault}
	sec := defaults
	if raw, present := data[string(key)]; present {
		out := compile(raw)
		report.Errors, report.Warnings = out.errs, out.warnings
		switch {
		case len(out.errs) == 0:
			sec, report.State = out.section, StateConfigured
		case previous != nil && previous.State(key) != StateFrozen:
			sec, report.State = prior(previous), StateLastGood
		default:
			report.State = StateFrozen
		}
	}
	c.reports = append(c.reports, report)
	return sec
}
