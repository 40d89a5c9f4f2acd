package faults

import (
	"bytes"
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/test/fixtures"
)

// Fleet is n realistic Nodes, as fixtures.WriteNodeList writes them: the
// labels and the bandwidth annotation the ConfigMap versions select on.
type Fleet struct {
	Nodes []corev1.Node
}

// NewFleet builds n Nodes ready to create (no status: the controller reads
// metadata only).
func NewFleet(n int) (*Fleet, error) {
	var buf bytes.Buffer
	if err := fixtures.WriteNodeList(&buf, n, false); err != nil {
		return nil, err
	}
	list := &corev1.NodeList{}
	if err := yaml.Unmarshal(buf.Bytes(), list); err != nil {
		return nil, fmt.Errorf("decoding the fixture nodes: %w", err)
	}
	for i := range list.Items {
		meta := &list.Items[i].ObjectMeta
		meta.ResourceVersion, meta.UID, meta.CreationTimestamp = "", "", metav1.Time{}
	}
	return &Fleet{Nodes: list.Items}, nil
}

// Names returns the nodes' names.
func (f *Fleet) Names() []string {
	names := make([]string, len(f.Nodes))
	for i := range f.Nodes {
		names[i] = f.Nodes[i].Name
	}
	return names
}

// Create creates the Nodes with `parallel` concurrent requests.
func (f *Fleet) Create(ctx context.Context, c client.Client, parallel int) error {
	return f.each(parallel, func(node *corev1.Node) error {
		if err := c.Create(ctx, node.DeepCopy()); err != nil {
			return fmt.Errorf("creating node %s: %w", node.Name, err)
		}
		return nil
	})
}

// Delete deletes the Nodes with `parallel` concurrent requests.
func (f *Fleet) Delete(ctx context.Context, c client.Client, parallel int) error {
	return f.each(parallel, func(node *corev1.Node) error {
		if err := client.IgnoreNotFound(c.Delete(ctx, node.DeepCopy())); err != nil {
			return fmt.Errorf("deleting node %s: %w", node.Name, err)
		}
		return nil
	})
}

// each runs fn on every node from `parallel` goroutines; it returns the first error.
func (f *Fleet) each(parallel int, fn func(*corev1.Node) error) error {
	next := make(chan int)
	errs := make(chan error, len(f.Nodes))
	var wg sync.WaitGroup
	for range parallel {
		wg.Go(func() {
			for i := range next {
				if err := fn(&f.Nodes[i]); err != nil {
					errs <- err
				}
			}
		})
	}
	for i := range f.Nodes {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	return <-errs
}

// resolverNodes returns what the engine reads of each node.
func (f *Fleet) resolverNodes() []sloconfig.Node {
	out := make([]sloconfig.Node, len(f.Nodes))
	for i := range f.Nodes {
		n := &f.Nodes[i]
		out[i] = sloconfig.Node{Name: n.Name, Labels: n.Labels, Annotations: n.Annotations}
	}
	return out
}
