package plugin

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/v1alpha1"
)

// FetchExplainInputs reads the Node, the ConfigMap, its revision history and the NodeSLO. A missing
// ConfigMap or NodeSLO is a normal state and comes back as nil; a missing
// Node is an error, since there is nothing to explain.
func FetchExplainInputs(
	ctx context.Context, c client.Reader, node string, configMap client.ObjectKey,
) (ExplainInputs, error) {
	in := ExplainInputs{ConfigMapRef: configMap.String(), Node: &corev1.Node{}}
	if err := c.Get(ctx, client.ObjectKey{Name: node}, in.Node); err != nil {
		if apierrors.IsNotFound(err) {
			return in, fmt.Errorf("node %q not found", node)
		}
		return in, fmt.Errorf("reading node %q: %w", node, err)
	}
	cm := &corev1.ConfigMap{}
	switch err := c.Get(ctx, configMap, cm); {
	case err == nil:
		in.ConfigMap = cm
	case !apierrors.IsNotFound(err):
		return in, fmt.Errorf("reading ConfigMap %s: %w", configMap, err)
	}
	// The history is extra: without the permission to list
	// ControllerRevisions the explanation goes on without it.
	switch h, err := FetchHistory(ctx, c, ConfigMapRef{Namespace: configMap.Namespace, Name: configMap.Name}); {
	case err == nil:
		in.History = &h
	case !apierrors.IsForbidden(errors.Unwrap(err)):
		return in, err
	}
	nodeSLO := &slov1alpha1.NodeSLO{}
	switch err := c.Get(ctx, client.ObjectKey{Name: node}, nodeSLO); {
	case err == nil:
		in.NodeSLO = nodeSLO
	case !apierrors.IsNotFound(err):
		return in, fmt.Errorf("reading NodeSLO %q: %w", node, err)
	}
	return in, nil
}
