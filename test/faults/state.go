package faults

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/client"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// State is the NodeSLOs as stored, by name.
type State map[string]Stored

// Stored is what the checks read of one NodeSLO.
type Stored struct {
	Spec slov1alpha1.NodeSLOSpec
	// Generation counts the spec changes etcd kept.
	Generation int64
}

// ReadState lists the NodeSLOs from the apiserver (not a cache).
func ReadState(ctx context.Context, c client.Reader) (State, error) {
	list := &slov1alpha1.NodeSLOList{}
	if err := c.List(ctx, list); err != nil {
		return nil, fmt.Errorf("listing NodeSLOs: %w", err)
	}
	out := make(State, len(list.Items))
	for i := range list.Items {
		out[list.Items[i].Name] = Stored{Spec: list.Items[i].Spec, Generation: list.Items[i].Generation}
	}
	return out, nil
}

// Matching counts the NodeSLOs whose spec is the wanted one.
func (s State) Matching(want Specs) int {
	n := 0
	for name, spec := range want {
		if stored, ok := s[name]; ok && sloconfig.SpecEqual(&stored.Spec, spec) {
			n++
		}
	}
	return n
}

// NothingLost returns nil when the stored NodeSLOs are exactly one per
// wanted node, each with the wanted spec; else an error naming up to five
// nodes that are not.
func (s State) NothingLost(want Specs) error {
	var wrong []string
	for name, spec := range want {
		if stored, ok := s[name]; !ok {
			wrong = append(wrong, name+" (missing)")
		} else if !sloconfig.SpecEqual(&stored.Spec, spec) {
			wrong = append(wrong, name+" (spec differs)")
		}
	}
	for name := range s {
		if _, ok := want[name]; !ok {
			wrong = append(wrong, name+" (no such node)")
		}
	}
	if len(wrong) == 0 {
		return nil
	}
	slices.Sort(wrong)
	return fmt.Errorf("%d NodeSLOs missing, extra or not as resolved from the final ConfigMap (%d nodes), e.g. %v",
		len(wrong), len(want), wrong[:min(5, len(wrong))])
}

// Tally is a test's count of writes, summed over the nodes.
type Tally struct {
	// Changes reached the nodes: configuration versions that changed a
	// node's spec, plus the other writer's spec edits.
	Changes int
	// Stored is the manager's spec changes etcd kept: generation increases
	// less the other writer's edits.
	Stored int
	// Requests is the manager's successful write requests (-1: not counted).
	Requests int
	// Nodes is how many nodes the manager wrote at all.
	Nodes int
}

func (t Tally) String() string {
	s := fmt.Sprintf("%d changes reached the nodes, %d spec writes stored by the manager on %d nodes",
		t.Changes, t.Stored, t.Nodes)
	if t.Requests >= 0 {
		s += fmt.Sprintf(", %d successful write requests", t.Requests)
	}
	return s
}

// NoWriteDoubled checks the manager's writes between the states before and
// after against the changes that reached each node (configuration changes
// plus foreign edits, both per node name). requests returns the manager's
// successful write requests to a node; nil when they were not counted
// (then only etcd's count is checked); each must have changed the spec,
// or it was redundant. exact asks that every change was
// written (each node's stored writes equal its changes), which holds when
// no change can be superseded before it is written: a single change.
func NoWriteDoubled(before, after State, changes, foreign map[string]int,
	requests func(name string) int, exact bool) (Tally, error) {
	t := Tally{Requests: -1}
	if requests != nil {
		t.Requests = 0
	}
	var errs []error
	for name, a := range after {
		b, existed := before[name]
		if !existed {
			errs = append(errs, fmt.Errorf("%s: NodeSLO created during the test", name))
			continue
		}
		reached := changes[name] + foreign[name]
		stored := int(a.Generation-b.Generation) - foreign[name]
		t.Changes += reached
		t.Stored += stored
		if stored > 0 {
			t.Nodes++
		}
		switch {
		case stored > reached:
			errs = append(errs, fmt.Errorf("%s: %d spec writes stored for %d changes", name, stored, reached))
		case exact && stored != reached:
			errs = append(errs, fmt.Errorf("%s: %d spec writes stored, want exactly %d", name, stored, reached))
		}
		if requests != nil {
			r := requests(name)
			t.Requests += r
			switch {
			case r > reached:
				errs = append(errs, fmt.Errorf("%s: %d successful write requests for %d changes", name, r, reached))
			case r > stored:
				// A write whose answer was lost is stored but not counted
				// as a request; a request that stored no change is redundant.
				errs = append(errs, fmt.Errorf("%s: %d successful write requests, only %d changed the spec",
					name, r, stored))
			}
		}
	}
	if len(errs) > 5 {
		errs = append(errs[:5], fmt.Errorf("and %d more", len(errs)-5))
	}
	return t, errors.Join(errs...)
}

// Of returns the NodeSLOs of the named nodes only, for a cluster that holds others.
func (s State) Of(names []string) State {
	out := make(State, len(names))
	for _, n := range names {
		if stored, ok := s[n]; ok {
			out[n] = stored
		}
	}
	return out
}
