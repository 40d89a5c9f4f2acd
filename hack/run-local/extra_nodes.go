package main

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// canaryLabel marks the canaries among extraNodes: under the prefix the
// NodeRestriction admission plugin keeps from kubelets.
const canaryLabel = "node-restriction.kubernetes.io/nodeslo-canary"

// extraNodes are the Nodes LOCAL_NODES=n adds beside the samples, so that a
// staged rollout has batches and canaries to show (docs/rollout-walkthrough.md):
// a tenth of them, at least one, canary-1.. labelled node-restriction.kubernetes.io/nodeslo-canary=true
// (a label no kubelet may set on its own Node: docs/rollout.md), the rest
// node-1.. labelled node-pool=general.
func extraNodes(n int) []corev1.Node {
	canaries := max(n/10, 1)
	if n == 0 {
		canaries = 0
	}
	nodes := make([]corev1.Node, 0, n)
	for i := range n {
		name, labels := fmt.Sprintf("node-%d", i-canaries+1), map[string]string{"node-pool": "general"}
		if i < canaries {
			name, labels = fmt.Sprintf("canary-%d", i+1), map[string]string{canaryLabel: "true"}
		}
		nodes = append(nodes, corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}})
	}
	return nodes
}

// createExtraNodes creates extraNodes(n); those that exist already (kept
// data) are left as they are.
func createExtraNodes(ctx context.Context, c client.Client, n int) error {
	for _, node := range extraNodes(n) {
		if err := c.Create(ctx, &node); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating node %s: %w", node.Name, err)
		}
	}
	return nil
}
