package plugin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// FetchExplainInputs reads the Node, the ConfigMap, its revision history and the NodeSLO. A missing
// ConfigMap or NodeSLO is a normal state and comes back as nil; a missing
// Node is an error, since there is nothing to explain.
func FetchExplainInputs(
	ctx context.Context, c client.Reader, node string, configMap client.ObjectKey,
) (ExplainInputs, error) {
	all, err := FetchExplainInputsOf(ctx, c, []string{node}, nil, configMap)
	if err != nil {
		return ExplainInputs{ConfigMapRef: configMap.String()}, err
	}
	return all[0], nil
}

// FetchExplainInputsOf is FetchExplainInputs for the nodes named and those
// selector matches (nil: none), by name, each once: the ConfigMap and its
// history are read once for all. A selector that matches no node is an
// error, as a named node that does not exist.
func FetchExplainInputsOf(
	ctx context.Context, c client.Reader, names []string, selector labels.Selector, configMap client.ObjectKey,
) ([]ExplainInputs, error) {
	nodes, err := explainedNodes(ctx, c, names, selector)
	if err != nil {
		return nil, err
	}
	shared := ExplainInputs{ConfigMapRef: configMap.String()}
	cm := &corev1.ConfigMap{}
	switch err := c.Get(ctx, configMap, cm); {
	case err == nil:
		shared.ConfigMap = cm
	case !apierrors.IsNotFound(err):
		return nil, fmt.Errorf("reading ConfigMap %s: %w", configMap, err)
	}
	// The history is extra: without the permission to list
	// ControllerRevisions the explanation goes on without it.
	switch h, err := FetchHistory(ctx, c, ConfigMapRef{Namespace: configMap.Namespace, Name: configMap.Name}); {
	case err == nil:
		shared.History = &h
	case !apierrors.IsForbidden(errors.Unwrap(err)):
		return nil, err
	}
	out := make([]ExplainInputs, 0, len(nodes))
	for _, node := range nodes {
		in := shared
		in.Node = node
		nodeSLO := &slov1alpha1.NodeSLO{}
		switch err := c.Get(ctx, client.ObjectKey{Name: node.Name}, nodeSLO); {
		case err == nil:
			in.NodeSLO = nodeSLO
		case !apierrors.IsNotFound(err):
			return nil, fmt.Errorf("reading NodeSLO %q: %w", node.Name, err)
		}
		out = append(out, in)
	}
	return out, nil
}

// explainedNodes reads the nodes named, then lists those selector matches
// (metadata only: labels and annotations are all resolving needs), sorted
// by name without repeats.
func explainedNodes(
	ctx context.Context, c client.Reader, names []string, selector labels.Selector,
) ([]*corev1.Node, error) {
	var nodes []*corev1.Node
	seen := map[string]bool{}
	for _, name := range names {
		if seen[name] {
			continue
		}
		seen[name] = true
		node := &corev1.Node{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, node); err != nil {
			if apierrors.IsNotFound(err) {
				return nil, fmt.Errorf("node %q not found", name)
			}
			return nil, fmt.Errorf("reading node %q: %w", name, err)
		}
		nodes = append(nodes, node)
	}
	if selector != nil {
		list := sloconfig.NodeMetadataList()
		if err := c.List(ctx, list, client.MatchingLabelsSelector{Selector: selector}); err != nil {
			return nil, fmt.Errorf("listing the nodes of selector %s: %w", selector, err)
		}
		if len(list.Items) == 0 {
			return nil, fmt.Errorf("no node matches the selector %s", selector)
		}
		for i := range list.Items {
			item := &list.Items[i]
			if !seen[item.Name] {
				seen[item.Name] = true
				nodes = append(nodes, &corev1.Node{ObjectMeta: *item.ObjectMeta.DeepCopy()})
			}
		}
	}
	slices.SortFunc(nodes, func(a, b *corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	return nodes, nil
}
