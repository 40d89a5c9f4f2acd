package plugin

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// `kubectl nodeslo summary` is the fleet at a glance
// (docs/kubectl-nodeslo.md#summary): which strategy each node pool gets per
// key, which keys are valid, how many nodes are up to date, pending or held.

// SummaryInputs are what the summary is made of: the rollout status (with
// the ConfigMap's data as it stands), the nodes and their stored specs.
type SummaryInputs struct {
	Status RolloutStatus
	// Data is the ConfigMap's data (nil: the ConfigMap does not exist).
	Data   map[string]string
	Nodes  []sloconfig.Node
	Stored map[string]*slov1alpha1.NodeSLOSpec
}

// Summary is `summary -o json|yaml`, and what its text shows.
type Summary struct {
	ConfigMap       string `json:"configMap"`
	ConfigMapExists bool   `json:"configMapExists"`
	// RevisionInForce is the revision in force, as the NodeSLORollout's
	// status says (0: none yet).
	RevisionInForce int64          `json:"revisionInForce,omitempty"`
	Rollout         RolloutSummary `json:"rollout"`
	Keys            []KeySummary   `json:"keys"`
	Nodes           NodeCounts     `json:"nodes"`
}

// RolloutSummary is the rollout of the ConfigMap's configuration in a line.
type RolloutSummary struct {
	// Configuration is the fingerprint of the ConfigMap's data as the
	// controller decided on it (12 characters; "" while not taken up).
	Configuration string `json:"configuration"`
	// State is "complete", "progressing", "held" (paused, halted by the
	// health gate or an invalid spec.strategy: Reason says which), or
	// "not-taken-up" (the controller has not decided on the data yet).
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
	// Line is what the text prints.
	Line string `json:"line"`
}

// KeySummary is one ConfigMap key: its validity and the nodes per strategy.
type KeySummary struct {
	KeyValidity
	Strategies []StrategyNodes `json:"strategies"`
}

// StrategyNodes counts the nodes one strategy applies to (Applies, Strategy
// and Index as in explain's output).
type StrategyNodes struct {
	Applied
	Nodes int `json:"nodes"`
	text  string
}

// NodeCounts: of Total nodes, UpToDate store what the ConfigMap's
// configuration resolves to; the others are Pending (the controller writes
// them as the rollout goes on, or at once without a strategy) or Held
// (the rollout is paused, halted or its strategy invalid). WithoutNodeSLO, among
// the pending or held, have none yet.
type NodeCounts struct {
	Total          int `json:"total"`
	UpToDate       int `json:"upToDate"`
	Pending        int `json:"pending"`
	Held           int `json:"held"`
	WithoutNodeSLO int `json:"withoutNodeSLO"`
}

// Summarize resolves every node as the controller would with the
// ConfigMap's data and counts the strategies and the nodes up to date.
func Summarize(in SummaryInputs) Summary {
	s := in.Status
	out := Summary{ConfigMap: s.ConfigMap.String(), ConfigMapExists: s.Exists, Rollout: rolloutSummary(s),
		RevisionInForce: s.Revision()}
	cfg := sloconfig.Load(in.Data, nil)
	counts := map[sloconfig.Key]map[string]*StrategyNodes{}
	for _, node := range in.Nodes {
		stored := in.Stored[node.Name]
		res := cfg.Resolve(node, stored)
		for i := range res.Matches {
			m := &res.Matches[i]
			label := applies(m)
			if counts[m.Key] == nil {
				counts[m.Key] = map[string]*StrategyNodes{}
			}
			c := counts[m.Key][label]
			if c == nil {
				c = &StrategyNodes{Applied: appliedOf(m), text: label}
				counts[m.Key][label] = c
			}
			c.Nodes++
		}
		out.Nodes.Total++
		switch {
		case stored != nil && sloconfig.SpecEqual(stored, &res.Spec):
			out.Nodes.UpToDate++
		case out.Rollout.State == rolloutHeld:
			out.Nodes.Held++
		default:
			out.Nodes.Pending++
		}
		if stored == nil {
			out.Nodes.WithoutNodeSLO++
		}
	}
	for _, report := range cfg.Reports() {
		k := KeySummary{KeyValidity: keyValidityOf(report), Strategies: []StrategyNodes{}}
		for _, c := range counts[report.Key] {
			k.Strategies = append(k.Strategies, *c)
		}
		slices.SortFunc(k.Strategies, func(a, b StrategyNodes) int {
			return cmp.Or(cmp.Compare(indexOf(a), indexOf(b)), strings.Compare(a.text, b.text))
		})
		out.Keys = append(out.Keys, k)
	}
	return out
}

// indexOf orders the cluster strategy, defaults and kept values before the
// node strategies, which follow in the order of their list.
func indexOf(s StrategyNodes) int {
	if s.Index == nil {
		return -1
	}
	return *s.Index
}

// The states of RolloutSummary, and the reasons a rollout is held.
const (
	rolloutComplete    = "complete"
	rolloutProgressing = "progressing"
	rolloutHeld        = "held"
	rolloutNotTakenUp  = "not-taken-up"
	heldByTheGate      = "halted by the health gate"
	heldByInvalidKey   = "spec.strategy is invalid"
	heldByPause        = "paused"
)

// rolloutSummary says in a line where the rollout of the ConfigMap's data stands.
func rolloutSummary(s RolloutStatus) RolloutSummary {
	r := RolloutSummary{Configuration: rollout.ShortTarget(s.Configuration())}
	st := s.Status
	switch {
	case !s.TakenUp():
		r.State = rolloutNotTakenUp
		r.Line = strings.TrimSuffix(s.ProgressLine(), "...")
	case s.Done():
		r.State = rolloutComplete
		r.Line = fmt.Sprintf("configuration %s: complete, in force on every node", r.Configuration)
	default:
		r.State = rolloutProgressing
		switch {
		case s.HaltedByTheGate():
			r.State, r.Reason = rolloutHeld, heldByTheGate
		case st.StrategyInvalid:
			r.State, r.Reason = rolloutHeld, heldByInvalidKey
		case st.Paused:
			r.State, r.Reason = rolloutHeld, heldByPause
		}
		r.Line = strings.TrimSuffix(strings.TrimPrefix(s.ProgressLine(), "Waiting for "), "...")
		if r.Reason == heldByTheGate {
			r.Line += " (halted by the health gate: kubectl nodeslo rollout status)"
		}
	}
	return r
}

// Write prints the summary for a person.
func (s Summary) Write(w io.Writer) error { return s.write(w, false) }

// WriteWide is Write with each key's warnings counted in a column of its
// own: -o wide.
func (s Summary) WriteWide(w io.Writer) error { return s.write(w, true) }

// printable is the summary as -o prints it: the summary of the ConfigMap
// named name.
func (s Summary) printable(name string) printable {
	return printable{value: s, names: []string{objectName(configMapKind, name)}}
}

func (s Summary) write(w io.Writer, wide bool) error {
	p := &errWriter{w: w}
	exists := ""
	if !s.ConfigMapExists {
		exists = " (does not exist: every key has its built-in defaults)"
	}
	p.printf("ConfigMap: %s%s\n", s.ConfigMap, exists)
	p.printf("Rollout:   %s\n\n", s.Rollout.Line)
	tw := tabwriter.NewWriter(p, 0, 4, 2, ' ', 0)
	warningsHeader := ""
	if wide {
		warningsHeader = "WARNINGS\t"
	}
	_, _ = fmt.Fprintln(tw, "KEY\tVALIDITY\t"+warningsHeader+"APPLIES\tNODES")
	row := func(key, validity, warnings, applies string, nodes int) {
		if wide {
			fprintf(tw, "%s\t%s\t%s\t%s\t%d\n", key, validity, warnings, applies, nodes)
			return
		}
		fprintf(tw, "%s\t%s\t%s\t%d\n", key, validity, applies, nodes)
	}
	for _, k := range s.Keys {
		validity, warnings := k.Validity, strconv.Itoa(len(k.Warnings))
		if len(k.Errors) > 0 {
			validity = fmt.Sprintf("invalid (errors: %d)", len(k.Errors))
		}
		if len(k.Strategies) == 0 {
			row(k.Key, validity, warnings, "-", 0)
		}
		for i, c := range k.Strategies {
			if i == 0 {
				row(k.Key, validity, warnings, c.text, c.Nodes)
			} else {
				row("", "", "", c.text, c.Nodes)
			}
		}
	}
	_ = tw.Flush()
	n := s.Nodes
	p.printf("\nNodes: %d; up to date %d, pending %d, held %d (without a NodeSLO: %d)\n",
		n.Total, n.UpToDate, n.Pending, n.Held, n.WithoutNodeSLO)
	return p.err
}
