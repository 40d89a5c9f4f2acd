package testkit

import (
	"context"

	. "github.com/onsi/ginkgo/v2" //nolint:staticcheck // the kit is Ginkgo's, like the suites that use it
	. "github.com/onsi/gomega"    //nolint:staticcheck // the kit is Gomega's, like the suites that use it
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CreateNodes creates n Nodes with a random name, labels and annotations,
// each deleted when the spec ends (after the spec's own cleanups that were
// registered later). It returns them as created.
func CreateNodes(ctx context.Context, c client.Client, n int, labels, annotations map[string]string) []*corev1.Node {
	GinkgoHelper()
	nodes := make([]*corev1.Node, n)
	for i := range nodes {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
			Name: "node-" + rand.String(8), Labels: labels, Annotations: annotations,
		}}
		Expect(c.Create(ctx, node)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) { Expect(client.IgnoreNotFound(c.Delete(ctx, node))).To(Succeed()) })
		nodes[i] = node
	}
	return nodes
}

// Names lists the names of objects.
func Names[T client.Object](objects []T) []string {
	names := make([]string, len(objects))
	for i, o := range objects {
		names[i] = o.GetName()
	}
	return names
}
