package main

import (
	"fmt"
	"strings"
)

// regime is a client rate limit and a number of workers, shared by the
// manager and its floor.
type regime struct {
	name    string
	qps     float64
	burst   int
	workers int
}

// regimes: Koordinator's defaults and this manager's own.
var regimes = []regime{
	{name: "qps30-burst50-1worker", qps: 30, burst: 50, workers: 1},
	{name: "defaults-qps100-burst200-8workers", qps: 100, burst: 200, workers: 8},
}

func (r regime) managerFlags() []string {
	return []string{
		fmt.Sprintf("--kube-api-qps=%g", r.qps),
		fmt.Sprintf("--kube-api-burst=%d", r.burst),
		fmt.Sprintf("--max-concurrent-reconciles=%d", r.workers),
	}
}

// selectRegimes picks regimes by a comma-separated list of name prefixes
// ("" = all of them).
func selectRegimes(spec string) ([]regime, error) {
	if spec == "" {
		return regimes, nil
	}
	var out []regime
	for p := range strings.SplitSeq(spec, ",") {
		found := false
		for _, r := range regimes {
			if strings.HasPrefix(r.name, strings.TrimSpace(p)) {
				out = append(out, r)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("no regime named %q (there are %s and %s)", p, regimes[0].name, regimes[1].name)
		}
	}
	return out, nil
}
