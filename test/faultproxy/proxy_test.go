package faultproxy_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	gomegatypes "github.com/onsi/gomega/types"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/test/faultproxy"
)

// configMap is a ConfigMap of the suite's namespace.
func configMap(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Data: map[string]string{"k": "v"}}
}

// receiveAdded waits for the ADDED event of the ConfigMap name on events,
// skipping others, and fails if the stream ends first.
func receiveAdded(events <-chan watch.Event, name string) {
	GinkgoHelper()
	Eventually(func() string {
		select {
		case e, open := <-events:
			Expect(open).To(BeTrue(), "the watch ended")
			if cm, ok := e.Object.(*corev1.ConfigMap); ok && e.Type == watch.Added {
				return cm.Name
			}
		default:
		}
		return ""
	}).Should(Equal(name))
}

var _ = Describe("The proxy without rules", func() {
	It("passes requests and watches on as the client's own identity", func(ctx SpecContext) {
		cs := clientsetOf(configA)
		review, err := cs.AuthenticationV1().SelfSubjectReviews().Create(ctx,
			&authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(review.Status.UserInfo.Username).To(Equal(userA), "the apiserver saw another identity")

		_, err = cs.CoreV1().ConfigMaps(namespace).Create(ctx, configMap("plain"), metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		list, err := cs.CoreV1().ConfigMaps(namespace).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(list.Items).To(ContainElement(HaveField("Name", "plain")))

		w, err := cs.CoreV1().ConfigMaps(namespace).Watch(ctx,
			metav1.ListOptions{ResourceVersion: list.ResourceVersion})
		Expect(err).NotTo(HaveOccurred())
		defer w.Stop()
		Expect(env.Client.Create(ctx, configMap("watched"))).To(Succeed())
		receiveAdded(w.ResultChan(), "watched")

		By("refusing a config that authenticates with a client certificate, which cannot pass")
		_, err = proxy.Through(env.Admin)
		Expect(err).To(MatchError(ContainSubstring("bearer token")))
	})
})

var _ = Describe("Faults", func() {
	It("answers 429 with Retry-After, which client-go waits out and retries", func(ctx SpecContext) {
		rule := addRule(faultproxy.Rule{
			Match: faultproxy.Match{Verbs: []string{faultproxy.VerbCreate}, Resource: configMaps, Namespace: namespace},
			Fault: faultproxy.TooManyRequests(1), Limit: 2,
		})
		start := time.Now()
		_, err := clientsetOf(configA).CoreV1().ConfigMaps(namespace).Create(ctx, configMap("throttled"),
			metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(rule.Faulted()).To(Equal(2))
		Expect(rule.Matched()).To(Equal(3), "the third attempt went through")
		Expect(time.Since(start)).To(BeNumerically(">=", 2*time.Second), "client-go did not wait 1 s twice")
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(configMap("throttled")), &corev1.ConfigMap{})).
			To(Succeed())
	})

	It("answers 409 to a status patch, which client-go returns as a Conflict", func(ctx SpecContext) {
		rollout := &nodeslov1alpha1.NodeSLORollout{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "conflict"}}
		Expect(env.Client.Create(ctx, rollout)).To(Succeed())
		rule := addRule(faultproxy.Rule{
			Match: faultproxy.Match{Verbs: []string{faultproxy.VerbPatch}, Resource: "nodeslorollouts", Subresource: "status"},
			Fault: faultproxy.Conflict(),
		})
		c := clientOf(configA)
		statusPatch := client.RawPatch(types.MergePatchType, []byte(`{"status":{"revision":3}}`))
		err := c.Status().Patch(ctx, rollout.DeepCopy(), statusPatch)
		Expect(apierrors.IsConflict(err)).To(BeTrue(), "not a Conflict: %v", err)
		Expect(rule.Faulted()).To(Equal(1))

		By("passing a patch of the object itself, which the rule does not name")
		Expect(c.Patch(ctx, rollout.DeepCopy(),
			client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"patched":"yes"}}}`)))).To(Succeed())
		Expect(rule.Matched()).To(Equal(1))
		stored := &nodeslov1alpha1.NodeSLORollout{}
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(rollout), stored)).To(Succeed())
		Expect(stored.Labels).To(HaveKeyWithValue("patched", "yes"))
		Expect(stored.Status.Revision).To(BeZero(), "the refused status patch was written")
	})

	It("resets the connection after forwarding: the write is stored, the client gets an error", func(ctx SpecContext) {
		rule := addRule(faultproxy.Rule{
			Match: faultproxy.Match{Verbs: []string{faultproxy.VerbCreate}, Resource: configMaps},
			Fault: faultproxy.ResetAfterForwarding(), Limit: 1,
		})
		cs := clientsetOf(configA)
		_, err := cs.CoreV1().ConfigMaps(namespace).Create(ctx, configMap("reset"), metav1.CreateOptions{})
		Expect(err).To(HaveOccurred())
		// The client reads the reset as a reset, or, when its TLS layer
		// reads first, as the connection ending mid-answer: either way a
		// lost connection, never an answer of the apiserver.
		Expect(utilnet.IsProbableEOF(err)).To(BeTrue(), "not a lost connection: %v", err)
		Expect(rule.Faulted()).To(Equal(1))
		Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(configMap("reset")), &corev1.ConfigMap{})).
			To(Succeed(), "the write did not reach the apiserver")

		By("answering on a new connection afterwards")
		_, err = cs.CoreV1().ConfigMaps(namespace).Create(ctx, configMap("after-reset"), metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
	})

	It("delays an answer", func(ctx SpecContext) {
		const delay = 500 * time.Millisecond
		Expect(env.Client.Create(ctx, configMap("slow"))).To(Succeed())
		rule := addRule(faultproxy.Rule{
			Match: faultproxy.Match{Verbs: []string{faultproxy.VerbGet}, Resource: configMaps, Name: "slow"},
			Fault: faultproxy.Delay(delay),
		})
		start := time.Now()
		got, err := clientsetOf(configA).CoreV1().ConfigMaps(namespace).Get(ctx, "slow", metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Data).To(HaveKeyWithValue("k", "v"))
		Expect(time.Since(start)).To(BeNumerically(">=", delay))
		Expect(rule.Faulted()).To(Equal(1))
	})

	It("stalls a watch: nothing during the stall, the held events after", func(ctx SpecContext) {
		const stall = 3 * time.Second
		rule := addRule(faultproxy.Rule{
			Match: faultproxy.Match{Verbs: []string{faultproxy.VerbWatch}, Resource: configMaps, Namespace: namespace},
			Fault: faultproxy.StallWatch(stall), Limit: 1,
		})
		cs := clientsetOf(configA)
		list, err := cs.CoreV1().ConfigMaps(namespace).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		start := time.Now()
		w, err := cs.CoreV1().ConfigMaps(namespace).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
		Expect(err).NotTo(HaveOccurred())
		defer w.Stop()
		Expect(time.Since(start)).To(BeNumerically("<", stall), "the stalled watch did not even open")
		Expect(rule.Faulted()).To(Equal(1))
		Expect(env.Client.Create(ctx, configMap("held"))).To(Succeed())
		quiet := stall - 500*time.Millisecond - time.Since(start)
		Expect(quiet).To(BeNumerically(">", 500*time.Millisecond), "the spec was too slow to watch the stall")
		Consistently(w.ResultChan()).WithTimeout(quiet).ShouldNot(Receive(),
			"an event passed during the stall")
		receiveAdded(w.ResultChan(), "held")
		Expect(time.Since(start)).To(BeNumerically(">=", stall))
	})

	DescribeTable("ends a stalled watch, and the events are there for the next watch",
		func(ctx SpecContext, fault faultproxy.Fault, name string, passed gomegatypes.GomegaMatcher) {
			const stall = time.Second
			rule := addRule(faultproxy.Rule{
				Match: faultproxy.Match{Verbs: []string{faultproxy.VerbWatch}, Resource: configMaps, Namespace: namespace},
				Fault: fault, Limit: 1,
			})
			cs := clientsetOf(configA)
			list, err := cs.CoreV1().ConfigMaps(namespace).List(ctx, metav1.ListOptions{})
			Expect(err).NotTo(HaveOccurred())
			from := metav1.ListOptions{ResourceVersion: list.ResourceVersion}
			w, err := cs.CoreV1().ConfigMaps(namespace).Watch(ctx, from)
			Expect(err).NotTo(HaveOccurred())
			defer w.Stop()
			Expect(env.Client.Create(ctx, configMap(name))).To(Succeed())
			var delivered []watch.EventType
			Eventually(func() bool {
				select {
				case e, open := <-w.ResultChan():
					if open {
						delivered = append(delivered, e.Type)
					}
					return !open
				default:
					return false
				}
			}).WithTimeout(5*stall).Should(BeTrue(), "the stream did not end")
			Expect(delivered).To(passed, "what passed the stall")
			Expect(rule.Faulted()).To(Equal(1))

			again, err := cs.CoreV1().ConfigMaps(namespace).Watch(ctx, from)
			Expect(err).NotTo(HaveOccurred())
			defer again.Stop()
			receiveAdded(again.ResultChan(), name)
		},
		Entry("cut: the stream breaks off (client-go may report the error), no event passes",
			faultproxy.StallWatchThenCut(time.Second), "cut", Not(ContainElement(watch.Added))),
		Entry("ended cleanly: neither an event nor an error passes",
			faultproxy.StallWatchThenEnd(time.Second), "ended", BeEmpty()),
	)

	It("drops every open connection: a watch opened before ends, and the next one meets the rules", func(ctx SpecContext) {
		cs := clientsetOf(configA)
		list, err := cs.CoreV1().ConfigMaps(namespace).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		from := metav1.ListOptions{ResourceVersion: list.ResourceVersion}
		w, err := cs.CoreV1().ConfigMaps(namespace).Watch(ctx, from)
		Expect(err).NotTo(HaveOccurred())
		defer w.Stop()
		rule := addRule(faultproxy.Rule{
			Match: faultproxy.Match{Verbs: []string{faultproxy.VerbWatch}, Resource: configMaps, Namespace: namespace},
			Fault: faultproxy.StallWatch(time.Hour), Limit: 1,
		})
		Expect(rule.Faulted()).To(BeZero(), "a rule reaches no watch opened before it")

		Expect(proxy.DropConnections()).To(BeNumerically(">=", 1))
		Eventually(w.ResultChan()).Should(BeClosed(), "the open watch did not end")
		again, err := cs.CoreV1().ConfigMaps(namespace).Watch(ctx, from)
		Expect(err).NotTo(HaveOccurred())
		defer again.Stop()
		Expect(rule.Faulted()).To(Equal(1), "the watch opened after the drop met the rule")
	})

	It("faults only the identity a rule names", func(ctx SpecContext) {
		rule := addRule(faultproxy.Rule{
			Match: faultproxy.Match{Verbs: []string{faultproxy.VerbGet}, Resource: configMaps, User: userA},
			Fault: faultproxy.ServiceUnavailable(0),
		})
		Expect(env.Client.Create(ctx, configMap("shared"))).To(Succeed())
		_, err := clientsetOf(configB).CoreV1().ConfigMaps(namespace).Get(ctx, "shared", metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		_, err = clientsetOf(configA).CoreV1().ConfigMaps(namespace).Get(ctx, "shared", metav1.GetOptions{})
		Expect(apierrors.IsServiceUnavailable(err)).To(BeTrue(), "not a 503: %v", err)
		Expect(rule.Faulted()).To(Equal(1))
	})
})
