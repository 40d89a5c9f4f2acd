package main

import (
	"fmt"
	"strings"
)

// regime is a client rate limit and a number of workers, shared by the
// manager and its floor.
type regime struct {
	name string
	// qps is the client's rate limit; negative turns client-go's rate
	// limiter off (rest.Config.QPS), and burst means nothing then.
	qps     float64
	burst   int
	workers int
}

// assumedWritesPerSecond bounds an unthrottled regime's phases: no limit
// paces it, so its timeouts are those of a 100-writes-a-second one.
const assumedWritesPerSecond = 100

// regimes: Koordinator's defaults, this manager's own, and no client rate
// limit at all with this manager's default workers (--kube-api-qps=-1, as
// operators who leave the pacing to the apiserver's priority and fairness
// run it), where the controller's own cost is what the time shows.
var regimes = []regime{
	{name: "qps30-burst50-1worker", qps: 30, burst: 50, workers: 1},
	{name: "defaults-qps100-burst200-8workers", qps: 100, burst: 200, workers: 8},
	{name: "unthrottled-8workers", qps: -1, workers: 8},
}

// defaultsRegime is the prefix of the regime of the manager's defaults.
const defaultsRegime = "defaults"

// unthrottled says the regime has no client-side rate limit.
func (r regime) unthrottled() bool { return r.qps < 0 }

// writesPerSecond is the rate the regime's timeouts assume.
func (r regime) writesPerSecond() float64 {
	if r.unthrottled() {
		return assumedWritesPerSecond
	}
	return r.qps
}

func (r regime) managerFlags() []string {
	flags := []string{fmt.Sprintf("--kube-api-qps=%g", r.qps)}
	if !r.unthrottled() {
		flags = append(flags, fmt.Sprintf("--kube-api-burst=%d", r.burst))
	}
	return append(flags, fmt.Sprintf("--max-concurrent-reconciles=%d", r.workers))
}

// selectRegimes picks regimes by a comma-separated list of name prefixes
// ("" = all of them).
func selectRegimes(spec string) ([]regime, error) {
	if spec == "" {
		return regimes, nil
	}
	var out []regime
	for p := range strings.SplitSeq(spec, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		found := false
		for _, r := range regimes {
			if strings.HasPrefix(r.name, p) {
				out = append(out, r)
				found = true
			}
		}
		if !found {
			names := make([]string, len(regimes))
			for i, r := range regimes {
				names[i] = r.name
			}
			return nil, fmt.Errorf("BENCH_REGIMES: no regime named %q (there are %s)", p, strings.Join(names, ", "))
		}
	}
	return out, nil
}

// regimeNamed returns the regime whose name starts with prefix; it panics
// when there is none, a mistake in this file.
func regimeNamed(prefix string) regime {
	for _, r := range regimes {
		if strings.HasPrefix(r.name, prefix) {
			return r
		}
	}
	panic("no regime " + prefix)
}
