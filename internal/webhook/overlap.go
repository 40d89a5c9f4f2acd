package webhook

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// maxNamedNodes is how many nodes an overlap warning names; it counts the rest.
const maxNamedNodes = 5

// nodeListTimeout bounds the wait for the Node cache (on a replica that just
// started), well within the webhook's 5 s timeout: the warning is worth less
// than an answer.
const nodeListTimeout = 2 * time.Second

// overlapWarnings resolves every live Node against cfg and returns one
// warning per set of node strategies of one key that match the same nodes
// (the first wins, the others are ignored on those nodes), naming up to
// maxNamedNodes of them.
func overlapWarnings(ctx context.Context, nodes client.Reader, cfg *sloconfig.Config) []string {
	if nodes == nil {
		return nil
	}
	list := sloconfig.NodeMetadataList()
	ctx, cancel := context.WithTimeout(ctx, nodeListTimeout)
	defer cancel()
	if err := nodes.List(ctx, list); err != nil {
		return []string{fmt.Sprintf("node strategies were not checked against live nodes: %v", err)}
	}

	byMessage := map[string][]string{}
	var order []string
	for i := range list.Items {
		node := sloconfig.NodeOf(&list.Items[i])
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
	return out
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
