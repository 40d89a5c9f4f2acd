package plugin

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// listPage is how many objects one list request asks for, as kubectl's
// --chunk-size default: a 10,000-node fleet is read in pages, not at once.
const listPage = 500

// FetchDiffInputs lists the Nodes (metadata only: labels and annotations
// are all resolving needs, and a Node's status is large) and the NodeSLOs,
// page by page, and returns them with data, the file's ConfigMap data.
func FetchDiffInputs(ctx context.Context, c client.Reader, data map[string]string) (DiffInputs, error) {
	return FetchDiffInputsOf(ctx, c, data, nil)
}

// FetchDiffInputsOf is FetchDiffInputs for the nodes selector matches
// (nil: every node).
func FetchDiffInputsOf(
	ctx context.Context, c client.Reader, data map[string]string, selector labels.Selector,
) (DiffInputs, error) {
	in := DiffInputs{Data: data, Stored: map[string]*slov1alpha1.NodeSLOSpec{}}
	newNodeList := func() client.ObjectList {
		return sloconfig.NodeMetadataList()
	}
	var nodeOpts []client.ListOption
	if selector != nil {
		nodeOpts = append(nodeOpts, client.MatchingLabelsSelector{Selector: selector})
	}
	err := listPages(ctx, c, newNodeList, func(page client.ObjectList) {
		for _, n := range page.(*metav1.PartialObjectMetadataList).Items {
			in.Nodes = append(in.Nodes, sloconfig.NodeOf(&n))
		}
	}, nodeOpts...)
	if err != nil {
		return in, fmt.Errorf("listing nodes: %w", err)
	}
	newNodeSLOList := func() client.ObjectList { return &slov1alpha1.NodeSLOList{} }
	err = listPages(ctx, c, newNodeSLOList, func(page client.ObjectList) {
		items := page.(*slov1alpha1.NodeSLOList).Items
		for i := range items {
			in.Stored[items[i].Name] = &items[i].Spec
		}
	})
	if err != nil {
		return in, fmt.Errorf("listing NodeSLOs: %w", err)
	}
	return in, nil
}

// listPages lists page by page, each page into a new list (a decoder may
// reuse what it decodes into), with extra options (a selector), and hands
// every page to each.
func listPages(
	ctx context.Context, c client.Reader, newList func() client.ObjectList, each func(client.ObjectList),
	extra ...client.ListOption,
) error {
	opts := append([]client.ListOption{client.Limit(listPage)}, extra...)
	for {
		list := newList()
		if err := c.List(ctx, list, opts...); err != nil {
			return err
		}
		each(list)
		next := list.GetContinue()
		if next == "" {
			return nil
		}
		opts = append([]client.ListOption{client.Limit(listPage), client.Continue(next)}, extra...)
	}
}
