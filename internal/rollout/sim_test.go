package rollout

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// t0 is when the tests' first change is applied.
var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// cluster stands in for the apiserver: what each node's NodeSLO stores
// (the name of the configuration its spec was resolved from, "" for no
// NodeSLO), and the rollout record. It applies decisions the way the
// controller is meant to: persist the record, then write the nodes.
type cluster struct {
	stored  map[string]string
	canary  map[string]bool
	record  Record
	key     string // the nodeslo-rollout-config value; "" absent
	target  string
	resolve func(node, config string) string
	// writes are the NodeSLO writes, in order.
	writes []string
}

// newCluster has n nodes named n00.., all storing config "A"; the first
// canaries of them (by name) are canaries.
func newCluster(n, canaries int, key string) *cluster {
	c := &cluster{stored: map[string]string{}, canary: map[string]bool{}, key: key, target: "A"}
	for i := range n {
		name := fmt.Sprintf("n%02d", i)
		c.stored[name] = "A"
		c.canary[name] = i < canaries
	}
	c.resolve = func(_, config string) string { return config }
	return c
}

func (c *cluster) load() Key {
	if c.key == "" {
		return LoadKey(nil)
	}
	return LoadKey(map[string]string{string(sloconfig.KeyRollout): c.key})
}

// decide runs one decision at now and applies it; it returns the decision
// and the nodes written.
func (c *cluster) decide(t *testing.T, now time.Time) (Decision, []string) {
	t.Helper()
	in := Input{Rollout: c.load(), Target: c.target, Record: c.record, Now: now}
	for _, name := range slices.Sorted(maps.Keys(c.stored)) {
		stored := c.stored[name]
		in.Nodes = append(in.Nodes, Node{
			Name: name, Stored: stored != "", Differs: stored != c.resolve(name, c.target),
			Canary: c.canary[name],
		})
	}
	d := Decide(in)
	c.record = d.Record
	for _, name := range d.Write {
		c.stored[name] = c.resolve(name, c.target)
	}
	c.writes = append(c.writes, d.Write...)
	return d, d.Write
}

// onTarget counts the nodes whose NodeSLO stores what the target resolves to.
func (c *cluster) onTarget() int {
	n := 0
	for name, s := range c.stored {
		if s == c.resolve(name, c.target) {
			n++
		}
	}
	return n
}

func (c *cluster) canaries(names []string) int {
	n := 0
	for _, name := range names {
		if c.canary[name] {
			n++
		}
	}
	return n
}

func at(seconds float64) time.Time { return t0.Add(time.Duration(seconds * float64(time.Second))) }

// acceptanceKey is the strategy of the acceptance scenario of issue 12.
const acceptanceKey = `{"maxNodesPerStep": 10, "stepIntervalSeconds": 2,
	"canary": {"nodeSelector": {"matchLabels": {"canary": "true"}}, "soakSeconds": 3}}`
