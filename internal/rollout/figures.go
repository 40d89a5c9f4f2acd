package rollout

// Figures are the values of the rollout gauges; the zero value is "no
// rollout".
type Figures struct {
	Pending, Reached, Step, Unhealthy int
	InProgress, Paused, Halted        bool
}
