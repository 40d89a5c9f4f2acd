package main

import (
	"strings"
	"testing"
	"time"
)

func TestKwokPaceNamed(t *testing.T) {
	for _, off := range []string{"", "0"} {
		if p, err := kwokPaceNamed(off); p != nil || err != nil {
			t.Errorf("BENCH_KWOK=%q: got %v, %v; want no kwok", off, p, err)
		}
	}
	paces := map[string]time.Duration{"1": 5 * time.Minute, kubeletPace: 5 * time.Minute, "fast": 10 * time.Second}
	for v, want := range paces {
		p, err := kwokPaceNamed(v)
		if err != nil || p == nil || p.status != want {
			t.Errorf("BENCH_KWOK=%s: got %v, %v; want a status report every %s", v, p, err, want)
		}
	}
	if _, err := kwokPaceNamed("slow"); err == nil || !strings.Contains(err.Error(), "BENCH_KWOK=slow") {
		t.Errorf("BENCH_KWOK=slow: got %v; want an error naming it", err)
	}
}
