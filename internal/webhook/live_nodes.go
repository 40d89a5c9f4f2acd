package webhook

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// nodeListTimeout bounds the wait for the Node cache (on a replica that just
// started), well within the webhook's 5 s timeout: the warning is worth less
// than an answer.
const nodeListTimeout = 2 * time.Second

// listLiveNodes lists the Nodes' metadata from nodes (the manager's cache),
// read-only: the cache's objects are not copied.
func listLiveNodes(ctx context.Context, nodes client.Reader) ([]metav1.PartialObjectMetadata, error) {
	if nodes == nil {
		return nil, errors.New("no Node reader")
	}
	list := sloconfig.NodeMetadataList()
	ctx, cancel := context.WithTimeout(ctx, nodeListTimeout)
	defer cancel()
	if err := nodes.List(ctx, list, client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("listing Nodes: %w", err)
	}
	return list.Items, nil
}

// liveNodeWarnings checks cfg's node strategies against the live nodes:
// those of one key that overlap on some nodes, and those that match none.
// Both checks stop when ctx ends; one warning then says they were not made.
func liveNodeWarnings(ctx context.Context, nodes client.Reader, cfg *sloconfig.Config) []string {
	const notChecked = "node strategies were not checked against live nodes"
	if nodes == nil {
		return nil
	}
	items, err := listLiveNodes(ctx, nodes)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return []string{cutShort(notChecked, ctxErr)}
		}
		return []string{fmt.Sprintf("%s: %v", notChecked, err)}
	}
	warnings, err := overlapWarnings(ctx, items, cfg)
	if err != nil {
		return []string{cutShort(notChecked, err)}
	}
	reach, count, err := cfg.ReachWithin(ctx, func(yield func(map[string]string) bool) {
		for i := range items {
			if !yield(sloconfig.LabelsOf(&items[i])) {
				return
			}
		}
	})
	if err != nil {
		return []string{cutShort(notChecked, err)}
	}
	return append(warnings, sloconfig.UnmatchedWarnings(reach, count, "in the cluster")...)
}
