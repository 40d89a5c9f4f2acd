package faults_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/test/faults"
)

// editLabel is the label the other writer puts on NodeSLOs: not part of
// the spec, so the manager leaves it alone.
const editLabel = "faults.nodeslo.dev/edit"

// otherWriter edits NodeSLOs as a person or another controller might:
// read from the apiserver, change, update; a conflict is counted, not retried.
type otherWriter struct {
	mu        sync.Mutex
	specEdits map[string]int // successful spec edits by NodeSLO name
	labels    int            // successful label-only edits
	conflicts int
}

// run makes `attempts` edits from `parallel` goroutines, spread over the
// fleet: even ones change the CPU burst period to a value no configuration
// version gives (and a label), odd ones only the label.
func (w *otherWriter) run(ctx context.Context, attempts, parallel int) {
	GinkgoHelper()
	w.specEdits = map[string]int{}
	next := make(chan int)
	var wg sync.WaitGroup
	for range parallel {
		wg.Go(func() {
			defer GinkgoRecover()
			for k := range next {
				w.edit(ctx, fleet.Nodes[(k*7)%len(fleet.Nodes)].Name, k)
			}
		})
	}
	for k := range attempts {
		next <- k
	}
	close(next)
	wg.Wait()
}

func (w *otherWriter) edit(ctx context.Context, name string, k int) {
	slo := &slov1alpha1.NodeSLO{}
	Expect(k8sClient.Get(ctx, client.ObjectKey{Name: name}, slo)).To(Succeed())
	spec := k%2 == 0
	if spec {
		slo.Spec.CPUBurstStrategy.CFSQuotaBurstPeriodSeconds = new(int64(10_000 + k))
	}
	if slo.Labels == nil {
		slo.Labels = map[string]string{}
	}
	slo.Labels[editLabel] = fmt.Sprint(k)
	err := k8sClient.Update(ctx, slo)
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case apierrors.IsConflict(err):
		w.conflicts++
	case spec:
		Expect(err).NotTo(HaveOccurred())
		w.specEdits[name]++
	default:
		Expect(err).NotTo(HaveOccurred())
		w.labels++
	}
}

func (w *otherWriter) specEditTotal() int {
	n := 0
	for _, e := range w.specEdits {
		n += e
	}
	return n
}

// Another client edits NodeSLO specs and labels while a change rolls: both
// sides meet conflicts; the manager must undo every foreign spec edit,
// keep the labels, and write no node more often than changes reached it.
var _ = Describe("another writer editing NodeSLOs during a change", Serial, func() {
	It("ends with every NodeSLO as resolved from the ConfigMap, nothing lost or doubled", func(ctx SpecContext) {
		writes := startManager(nil)
		from, to := faults.Version(20), faults.Version(21)
		before := settle(ctx, from)
		want := expected(to)
		changes := faults.ChangesBetween(expected(from), want)
		writes.Reset()

		other := &otherWriter{}
		setConfig(ctx, to)
		changed := time.Now()
		other.run(ctx, fleetSize, 8)
		otherDone := time.Now()
		Expect(other.specEditTotal()).To(BeNumerically(">", 0), "the other writer changed some specs")

		after, converged := convergedAndQuiet(ctx, want)
		tally, err := faults.NoWriteDoubled(before, after, changes, other.specEdits, writes.Succeeded, false)
		Expect(err).NotTo(HaveOccurred())
		labelled := 0
		for _, slo := range listNodeSLOs(ctx) {
			if _, ok := slo.Labels[editLabel]; ok {
				labelled++
			}
		}
		Expect(labelled).To(BeNumerically(">", 0), "the manager keeps the other writer's labels")
		_, conflicts, failed := writes.Totals()
		figure("other writer", "%d nodes: converged %s after the other writer stopped (%s from the change); "+
			"it made %d spec edits and %d label edits, and met %d conflicts; the manager met %d conflicts "+
			"and %d other failures; %s", fleetSize, seconds(converged.Sub(otherDone)),
			seconds(converged.Sub(changed)), other.specEditTotal(), other.labels, other.conflicts, conflicts,
			failed, tally)
	})
})

func listNodeSLOs(ctx context.Context) []slov1alpha1.NodeSLO {
	GinkgoHelper()
	list := &slov1alpha1.NodeSLOList{}
	Expect(k8sClient.List(ctx, list)).To(Succeed())
	return list.Items
}
