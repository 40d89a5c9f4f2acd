package main

import (
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
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

func TestGateCanaries(t *testing.T) {
	for n, want := range map[int]int{10000: 100, 2000: 20, 200: 5, 3: 3} {
		canaries := gateCanaries(n)
		if len(canaries) != want {
			t.Errorf("%d nodes: %d canaries, want %d", n, len(canaries), want)
		}
		seen := map[int]bool{}
		for _, i := range canaries {
			if i < 0 || i >= n || seen[i] {
				t.Errorf("%d nodes: canary %d outside the fleet or twice", n, i)
			}
			seen[i] = true
		}
	}
	if len(gateCanaries(200)) <= gateNotReady {
		t.Errorf("fewer canaries than the %d made NotReady", gateNotReady)
	}
}

func TestKwokStages(t *testing.T) {
	docs := strings.Split(kwokStages(kwokPaces["fast"]), "---\n")
	if len(docs) != 3 {
		t.Fatalf("%d Stages, want 3", len(docs))
	}
	for _, doc := range docs {
		stage := struct {
			Kind     string
			Metadata struct{ Name string }
			Spec     struct {
				Selector struct {
					MatchExpressions []struct{ Key, Operator string }
				}
				Next struct{ StatusTemplate string }
			}
		}{}
		if err := yaml.Unmarshal([]byte(doc), &stage); err != nil {
			t.Fatalf("not YAML: %v\n%s", err, doc)
		}
		if stage.Kind != "Stage" || stage.Spec.Next.StatusTemplate == "" || len(stage.Spec.Selector.MatchExpressions) != 2 {
			t.Errorf("Stage %q: kind %q, %d selector lines, template %d bytes", stage.Metadata.Name, stage.Kind,
				len(stage.Spec.Selector.MatchExpressions), len(stage.Spec.Next.StatusTemplate))
		}
		onChaos := false
		for _, e := range stage.Spec.Selector.MatchExpressions {
			onChaos = onChaos || strings.Contains(e.Key, chaosLabel)
		}
		if !onChaos {
			t.Errorf("Stage %q does not read the chaos label: the Stages would race for a NotReady node",
				stage.Metadata.Name)
		}
	}
	if !strings.Contains(docs[0], "durationMilliseconds: 10000") ||
		!strings.Contains(docs[0], "jitterDurationMilliseconds: 11000") {
		t.Errorf("the status report is not at the fast pace:\n%s", docs[0])
	}
}
