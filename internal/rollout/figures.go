package rollout

// Figures are the values of the rollout gauges; the zero value is "no
// rollout". Withheld: the ConfigMap's data is a configuration the health
// gate halted, not in force (its halt alert stays on).
type Figures struct {
	Pending, Reached, Step, Unhealthy    int
	InProgress, Paused, Halted, Withheld bool
}
