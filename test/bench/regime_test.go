package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/nodeslo/nodeslo-controller/internal/controller"
)

const unthrottled = "unthrottled"

// BENCH_REGIMES picks regimes by name prefix, unthrottled among them.
func TestSelectRegimes(t *testing.T) {
	for spec, want := range map[string][]string{
		"":                    {"qps30", "defaults", unthrottled},
		unthrottled:           {unthrottled},
		"qps30, unthrottled":  {"qps30", unthrottled},
		"defaults,":           {"defaults"},
		"unthrottled-8worker": {unthrottled},
	} {
		got, err := selectRegimes(spec)
		if err != nil {
			t.Errorf("%q: %v", spec, err)
			continue
		}
		names := make([]string, len(got))
		for i, r := range got {
			names[i], _, _ = strings.Cut(r.name, "-")
		}
		if !slices.Equal(names, want) {
			t.Errorf("%q selects %v, want %v", spec, names, want)
		}
	}
	_, err := selectRegimes("qps50")
	if err == nil || !strings.Contains(err.Error(), `"qps50"`) || !strings.Contains(err.Error(), "unthrottled-8workers") {
		t.Errorf("an unknown regime: %v, want an error naming it and the regimes there are", err)
	}
}

// The unthrottled regime turns client-go's rate limiter off in the manager
// (a negative --kube-api-qps, no burst) with the manager's default workers,
// and gives its phases the timeouts of a 100-writes-a-second regime.
func TestUnthrottledRegime(t *testing.T) {
	r := regimeNamed(unthrottled)
	if !r.unthrottled() || r.qps >= 0 {
		t.Fatalf("%s has QPS %v", r.name, r.qps)
	}
	flags := r.managerFlags()
	if !slices.Contains(flags, "--kube-api-qps=-1") || !slices.Contains(flags, "--max-concurrent-reconciles=8") {
		t.Errorf("manager flags %v", flags)
	}
	for _, f := range flags {
		if strings.HasPrefix(f, "--kube-api-burst") {
			t.Errorf("manager flags %v set a burst that means nothing without a rate limit", flags)
		}
	}
	if got := r.writesPerSecond(); got != assumedWritesPerSecond {
		t.Errorf("writes per second for timeouts %v", got)
	}
	b := &bench{settings: settings{nodes: 1000}}
	if got := b.timeout(r); got <= 0 || got != b.timeout(regimeNamed("defaults")) {
		t.Errorf("timeout %v, want the defaults regime's %v", got, b.timeout(regimeNamed("defaults")))
	}
	if want := controller.DefaultOptions().MaxConcurrentReconciles; r.workers != want || !strings.HasSuffix(r.name,
		fmt.Sprintf("-%dworkers", want)) {
		t.Errorf("%s has %d workers, the manager's default is %d", r.name, r.workers, want)
	}
}
