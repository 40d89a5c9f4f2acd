package controller_test

import (
	"errors"
	"net/http"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/controller"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/storedslo"
	"github.com/nodeslo/nodeslo-controller/test/localcluster"
)

// errInjectedRead is what a faulted read returns: a transport's error,
// which client-go does not retry.
var errInjectedRead = errors.New("injected read fault: the apiserver cannot be reached")

// readFaults fails the manager's GETs of the paths it is told, as an
// apiserver that cannot answer them would, until healed.
type readFaults struct {
	mu    sync.Mutex
	paths map[string]bool
}

func (f *readFaults) wrap(rt http.RoundTripper) http.RoundTripper {
	return localcluster.RoundTripperFunc(func(req *http.Request) (*http.Response, error) {
		f.mu.Lock()
		failing := req.Method == http.MethodGet && f.paths[req.URL.Path]
		f.mu.Unlock()
		if failing {
			return nil, errInjectedRead
		}
		return rt.RoundTrip(req)
	})
}

// fail makes every GET of path fail.
func (f *readFaults) fail(path string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.paths == nil {
		f.paths = map[string]bool{}
	}
	f.paths[path] = true
}

// heal ends every fault.
func (f *readFaults) heal() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.paths = nil
}

var _ = Describe("A staged rollout whose plan fails", Serial, Label(shardRollout), func() {
	It("says so in its conditions, with the reason and the error, publishes nothing, "+
		"and goes on once the read succeeds", func(ctx SpecContext) {
		_, f, target := stagedRolloutSetUp(ctx)
		// A NodeSLO without its digest annotation is read by name for the
		// plan (rollout_test.go); that read fails.
		unvouched := f.names[rolloutCanaries]
		Eventually(func(g Gomega) {
			slo := &slov1alpha1.NodeSLO{}
			g.Expect(getNodeSLO(ctx, unvouched, slo)).To(Succeed())
			delete(slo.Annotations, storedslo.SpecDigestAnnotation)
			g.Expect(k8sClient.Update(ctx, slo)).To(Succeed())
		}).Should(Succeed())
		settle()
		readFault.fail(controller.NodeSLOsPath + "/" + unvouched)
		DeferCleanup(readFault.heal)

		writeConfig(ctx, rolloutData(40, rolloutPolicy(false)))
		conditions := func() map[string]metav1.Condition {
			out := map[string]metav1.Condition{}
			for _, c := range rolloutObject(ctx).Status.Conditions {
				out[c.Type] = c
			}
			return out
		}
		Eventually(func(g Gomega) {
			byType := conditions()
			for kind, status := range map[string]metav1.ConditionStatus{
				nodeslov1alpha1.ConditionReady:       metav1.ConditionFalse,
				nodeslov1alpha1.ConditionProgressing: metav1.ConditionFalse,
				nodeslov1alpha1.ConditionReconciling: metav1.ConditionTrue,
				nodeslov1alpha1.ConditionStalled:     metav1.ConditionFalse,
			} {
				c := byType[kind]
				g.Expect(c.Status).To(Equal(status), kind)
				g.Expect(c.Reason).To(Equal(rollout.ReasonPlanFailed), kind)
				g.Expect(c.Message).To(And(ContainSubstring("cannot plan the rollout of configuration"),
					ContainSubstring("trying again"), ContainSubstring(unvouched),
					ContainSubstring(errInjectedRead.Error())), kind)
			}
			g.Expect(byType[nodeslov1alpha1.ConditionHalted].Status).To(Equal(metav1.ConditionFalse))
		}).Should(Succeed())
		settle()
		Expect(f.at(ctx, 40)).To(BeEmpty(), "a configuration published without its plan")

		readFault.heal()
		watchRollout(ctx, f, target, 40, nil)
		Eventually(func(g Gomega) {
			ready := meta.FindStatusCondition(rolloutObject(ctx).Status.Conditions, nodeslov1alpha1.ConditionReady)
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.Status).To(Equal(metav1.ConditionTrue))
			g.Expect(ready.Reason).To(Equal(string(rollout.PhaseCompleted)))
		}).Should(Succeed())
	})
})
