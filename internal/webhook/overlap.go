package webhook

import (
	"context"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// maxNamedNodes is how many nodes an overlap warning names; it counts the rest.
const maxNamedNodes = 5

// overlapWarnings resolves every live Node against cfg and returns one
// warning per set of node strategies of one key that match the same nodes
// (the first wins, the others are ignored on those nodes), naming up to
// maxNamedNodes of them. It resolves node after node until ctx ends, and
// then returns ctx's error and no warning.
func overlapWarnings(
	ctx context.Context, items []metav1.PartialObjectMetadata, cfg *sloconfig.Config,
) ([]string, error) {
	byMessage := map[string][]string{}
	var order []string
	for i := range items {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		node := sloconfig.NodeOf(&items[i])
		res := cfg.Resolve(node, nil)
		for _, w := range res.Warnings {
			if w.Reason != sloconfig.ReasonMultipleNodeStrategies {
				continue
			}
			if _, seen := byMessage[w.Message]; !seen {
				order = append(order, w.Message)
			}
			byMessage[w.Message] = append(byMessage[w.Message], node.Name)
		}
	}
	out := make([]string, 0, len(order))
	for _, msg := range order {
		names := byMessage[msg]
		slices.Sort(names)
		out = append(out, fmt.Sprintf("%s (%s)", msg, describeNodes(names)))
	}
	return out, nil
}

// describeNodes says how many nodes there are and names the first few.
func describeNodes(names []string) string {
	noun := "nodes"
	if len(names) == 1 {
		noun = "node"
	}
	shown := names[:min(len(names), maxNamedNodes)]
	s := fmt.Sprintf("%d live %s: %s", len(names), noun, strings.Join(shown, ", "))
	if rest := len(names) - len(shown); rest > 0 {
		s += fmt.Sprintf(" and %d more", rest)
	}
	return s
}
