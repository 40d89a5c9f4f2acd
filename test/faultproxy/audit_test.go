package faultproxy_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/controller-runtime/pkg/client"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/test/faultproxy"
)

// adminUser is the suite's admin (test/localcluster's).
const adminUser = "local-admin"

func nodeSLO(name string) *slov1alpha1.NodeSLO {
	return &slov1alpha1.NodeSLO{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

var _ = Describe("The audit log's count of writes", func() {
	It("counts exactly the writes the apiserver carried out for each identity", func(ctx SpecContext) {
		nodeSLOWrites := func(user string) func() (int, error) {
			return func() (int, error) { return auditLog.SuccessfulWrites(user, "nodeslos") }
		}
		Expect(nodeSLOWrites(userA)()).To(BeZero())
		Expect(nodeSLOWrites(userB)()).To(BeZero())
		a, b := clientOf(configA), clientOf(configB)

		By("writer-a: two creates and an update carried out; a refused create, and one the proxy refused")
		refused := addRule(faultproxy.Rule{
			Match: faultproxy.Match{Verbs: []string{faultproxy.VerbCreate}, Resource: "nodeslos", User: userA},
			Fault: faultproxy.ServiceUnavailable(0), Limit: 1,
		})
		Expect(apierrors.IsServiceUnavailable(a.Create(ctx, nodeSLO("a-1")))).To(BeTrue())
		Expect(refused.Faulted()).To(Equal(1))
		first := nodeSLO("a-1")
		Expect(a.Create(ctx, first)).To(Succeed())
		Expect(a.Create(ctx, nodeSLO("a-2"))).To(Succeed())
		Expect(apierrors.IsAlreadyExists(a.Create(ctx, nodeSLO("a-2")))).To(BeTrue())
		first.Labels = map[string]string{"updated": "yes"}
		Expect(a.Update(ctx, first)).To(Succeed())

		By("writer-b: a create and a delete; a dry run, which stores nothing")
		Expect(b.Create(ctx, nodeSLO("b-1"))).To(Succeed())
		Expect(b.Create(ctx, nodeSLO("b-dry"), client.DryRunAll)).To(Succeed())
		Expect(b.Delete(ctx, nodeSLO("a-2"))).To(Succeed())

		By("the admin, directly: counted for neither")
		Expect(env.Client.Create(ctx, nodeSLO("admin-1"))).To(Succeed())

		Eventually(nodeSLOWrites(userA)).Should(Equal(3))
		Eventually(nodeSLOWrites(userB)).Should(Equal(2))
		Eventually(nodeSLOWrites(adminUser)).Should(Equal(1))
		Consistently(func() (map[string]int, error) { return auditLog.WritesByUser("nodeslos") }).
			WithTimeout(500 * time.Millisecond).Should(Equal(map[string]int{userA: 3, userB: 2, adminUser: 1}))
		Expect(auditLog.WritesByUser("nodeslos/status")).To(BeEmpty())
	})
})
