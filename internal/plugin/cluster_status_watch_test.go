package plugin

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/api/scheme"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// `rollout status` follows a watch of the ConfigMap and of its
// NodeSLORollout: no controller runs; each spec writes the status as the
// controller would, while the command waits.

// lockedBuffer is a buffer the command writes while the spec reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Reset empties the buffer.
func (l *lockedBuffer) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.Reset()
}

// watchedData is the ConfigMap's data in the specs below: a rollout with
// a health gate.
func watchedData() map[string]string { return gateData(false, `{"maxUnhealthyNodes": 1}`) }

// watchedNamespace creates namespace with the ConfigMap of watchedData
// and its NodeSLORollout, the controller's status decided on them:
// midRollout.
func watchedNamespace(ctx context.Context, namespace string) {
	GinkgoHelper()
	c := cluster.Client
	Expect(c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}})).To(Succeed())
	Expect(c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace,
		Name: sloconfig.DefaultConfigMapName}, Data: watchedData()})).To(Succeed())
	Expect(c.Create(ctx, &nodeslov1alpha1.NodeSLORollout{ObjectMeta: metav1.ObjectMeta{Namespace: namespace,
		Name: sloconfig.DefaultConfigMapName}})).To(Succeed())
	decide(ctx, namespace, midRollout(watchedData()))
}

// decide writes s as the status of namespace's NodeSLORollout, decided on
// its ConfigMap and spec as they stand, revision 1 in force.
func decide(ctx context.Context, namespace string, s apiStatus) {
	GinkgoHelper()
	obj := storedRollout(ctx, namespace)
	obj.Status = *s.DeepCopy()
	obj.Status.Revision, obj.Status.ObservedGeneration = 1, obj.Generation
	obj.Status.ObservedConfigMapVersion = storedConfigMap(ctx, namespace).ResourceVersion
	Expect(cluster.Client.Status().Update(ctx, obj)).To(Succeed())
}

// completed is midRollout's rollout, complete.
func completed() apiStatus {
	s := midRollout(watchedData())
	s.Phase, s.Step, s.Reached, s.Pending, s.NextStep, s.Completed =
		rollout.PhaseCompleted, 3, 5, 0, nil, mt(stepAt.Add(2*time.Minute))
	return s
}

// statusRun is `rollout status` running: its output so far, and its exit
// status once it ended.
type statusRun struct {
	out, errOut lockedBuffer
	ended       chan int
}

// startStatus runs `rollout status` with args and the admin's kubeconfig,
// and returns once it printed its first progress line: it has listed both
// objects and waits.
func startStatus(args ...string) *statusRun {
	GinkgoHelper()
	r := &statusRun{ended: make(chan int, 1)}
	// A run the spec fails to end ends by itself; a later --timeout wins.
	args = append([]string{rolloutCmd, statusCmd, kubeconfigFlag, adminKubeconfig, "--timeout", "2m"}, args...)
	go func() {
		defer GinkgoRecover()
		r.ended <- Execute(args, IOStreams{In: strings.NewReader(""), Out: &r.out, ErrOut: &r.errOut})
	}()
	Eventually(r.out.String).Should(HavePrefix("Waiting for rollout of configuration "), r.errOut.String)
	Expect(r.ended).NotTo(Receive(), "it ended before the status changed")
	return r
}

// waitEnd waits for the run to end, at most a generous minute, and returns
// its exit status and how long after since it ended.
func (r *statusRun) waitEnd(since time.Time) (code int, latency time.Duration) {
	GinkgoHelper()
	Eventually(r.ended).WithTimeout(time.Minute).Should(Receive(&code), r.out.String)
	return code, time.Since(since)
}

var _ = Describe("rollout status follows a watch", func() {
	It("ends as soon as the controller's status says the rollout completed, asking nothing in between",
		func(ctx SpecContext) {
			const namespace = "watch-complete"
			watchedNamespace(ctx, namespace)
			logged := captureKlog()
			run := startStatus("-n", namespace, "-v=6")
			Consistently(run.ended).WithTimeout(time.Second).ShouldNot(Receive())

			changed := time.Now()
			decide(ctx, namespace, completed())
			code, latency := run.waitEnd(changed)
			Expect(code).To(Equal(ExitOK), run.errOut.String())
			AddReportEntry("rollout status: from the status's change to the end", latency.String())
			GinkgoWriter.Printf("rollout status ended %s after the status changed\n", latency)
			progress, block := cutProgress(run.out.String())
			Expect(progress).To(HaveLen(1))
			expectLinesIn(block, "reached: 5 of 5 nodes", "complete: every node has the configuration in force")

			// One list of each, then watches: no read in between.
			for _, resource := range []string{"/api/v1/namespaces/" + namespace + "/configmaps",
				"/apis/nodeslo.koordinator.sh/v1alpha1/namespaces/" + namespace + "/nodeslorollouts"} {
				requests := requestsTo(logged.String(), resource)
				Expect(requests).NotTo(BeEmpty(), logged.String())
				Expect(requests[0]).To(ContainSubstring("fieldSelector=metadata.name%3Dslo-controller-config"))
				Expect(requests[0]).NotTo(ContainSubstring("watch=true"))
				for _, r := range requests[1:] {
					Expect(r).To(ContainSubstring("watch=true"), "a read after the list")
				}
			}
		})

	It("ends on a halt by the health gate with exit status 1, and on --timeout with kubectl's words",
		func(ctx SpecContext) {
			const namespace = "watch-halt"
			watchedNamespace(ctx, namespace)
			run := startStatus("-n", namespace)
			changed := time.Now()
			data := watchedData()
			decide(ctx, namespace, halted(data, "1", twoUnhealthy))
			code, latency := run.waitEnd(changed)
			GinkgoWriter.Printf("rollout status ended %s after the halt\n", latency)
			Expect(code).To(Equal(ExitError))
			Expect(run.out.String()).To(ContainSubstring("\nhalted: yes, by the health gate at "))
			Expect(run.errOut.String()).To(Equal("error: rollout of configuration " +
				rollout.ShortTarget(sloconfig.Load(data, nil).Fingerprint()) + " halted by its health gate\n"))

			decide(ctx, namespace, midRollout(data))
			run = startStatus("-n", namespace, "--timeout", "2s")
			code, _ = run.waitEnd(time.Now())
			Expect(code).To(Equal(ExitError))
			Expect(run.errOut.String()).To(Equal("error: timed out waiting for the condition\n"))
			expectLinesIn(run.out.String(), "reached: 3 of 5 nodes")
		})

	It("watches again when the apiserver closes a watch, and lists again when its resourceVersion expired",
		func(ctx SpecContext) {
			for _, fault := range []watchFault{closeFirstWatch, expireFirstWatch} {
				namespace := "watch-" + string(fault)
				watchedNamespace(ctx, namespace)
				c := faultyClient(fault)
				key := client.ObjectKey{Namespace: namespace, Name: sloconfig.DefaultConfigMapName}
				ended := make(chan error, 1)
				var out lockedBuffer
				watchCtx, stop := context.WithCancel(ctx)
				DeferCleanup(stop)
				go func() {
					ended <- followRollout(watchCtx, watchRollout(watchCtx, c, key), &out, statusFollow{watch: true})
				}()
				// The fault has passed: a second watch of the NodeSLORollout is up.
				Eventually(c.watches).Should(BeNumerically(">=", 2))
				decide(ctx, namespace, completed())
				Eventually(ended).WithTimeout(time.Minute).Should(Receive(BeNil()), out.String)
				expectLinesIn(out.String(), "complete: every node has the configuration in force")
				if fault == expireFirstWatch {
					Expect(c.lists()).To(Equal(2), "an expired watch is followed by a new list")
				} else {
					Expect(c.lists()).To(Equal(1), "a closed watch resumes from its resourceVersion")
				}
			}
		})

	It("needs get, list and watch of the two objects only, which a Role may name", func(ctx SpecContext) {
		const namespace, user = "watch-rbac", "rollout-watcher"
		watchedNamespace(ctx, namespace)
		Expect(cluster.Client.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: user},
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{""}, Resources: []string{"configmaps"},
					ResourceNames: []string{sloconfig.DefaultConfigMapName}, Verbs: []string{"get", "list", "watch"}},
				{APIGroups: []string{nodeslov1alpha1.GroupVersion.Group}, Resources: []string{"nodeslorollouts"},
					ResourceNames: []string{sloconfig.DefaultConfigMapName}, Verbs: []string{"get", "list", "watch"}},
			}})).To(Succeed())
		Expect(cluster.Client.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: namespace,
			Name: user}, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: user},
			Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}}})).To(Succeed())

		run := startStatus("-n", namespace, "--as", user)
		changed := time.Now()
		decide(ctx, namespace, completed())
		code, _ := run.waitEnd(changed)
		Expect(code).To(Equal(ExitOK), run.errOut.String())

		code, _, stderr := runAgainst(rolloutCmd, statusCmd, "-n", teamNamespace, "--as", user)
		Expect(code).To(Equal(ExitError))
		// Both lists are sent at once: either is refused first.
		Expect(stderr).To(MatchRegexp(`^error: listing (ConfigMap|NodeSLORollout) team-a/slo-controller-config: ` +
			`.* is forbidden: User "rollout-watcher" cannot list`))
	})
})

// expectLinesIn expects each of wants in out.
func expectLinesIn(out string, wants ...string) {
	GinkgoHelper()
	for _, want := range wants {
		Expect(out).To(ContainSubstring(want))
	}
}

// klogRequest is a request client-go logs at -v=6: its URL.
var klogRequest = regexp.MustCompile(`"Response" verb="GET" url="([^"]+)"`)

// requestsTo lists the URLs of the requests logged whose path is path.
func requestsTo(logged, path string) []string {
	var urls []string
	for _, m := range klogRequest.FindAllStringSubmatch(logged, -1) {
		if rest, found := strings.CutPrefix(m[1][strings.Index(m[1], "/api"):], path); found &&
			(rest == "" || strings.HasPrefix(rest, "?")) {
			urls = append(urls, m[1])
		}
	}
	return urls
}

// watchFault is what happens to the first watch of the NodeSLORollout.
type watchFault string

const (
	// closeFirstWatch: the apiserver ends it, as it ends every watch after
	// a while.
	closeFirstWatch watchFault = "closed"
	// expireFirstWatch: the apiserver answers that its resourceVersion is
	// too old, as after a compaction.
	expireFirstWatch watchFault = "expired"
)

// faultyWatchClient is the admin's client whose first watch of
// NodeSLORollouts meets fault; it counts the lists and the watches of
// NodeSLORollouts.
type faultyWatchClient struct {
	client.WithWatch
	fault              watchFault
	mu                 sync.Mutex
	listed, watchCount int
}

func faultyClient(fault watchFault) *faultyWatchClient {
	GinkgoHelper()
	c, err := client.NewWithWatch(cluster.Admin, client.Options{Scheme: scheme.New()})
	Expect(err).NotTo(HaveOccurred())
	return &faultyWatchClient{WithWatch: c, fault: fault}
}

func (f *faultyWatchClient) lists() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.listed
}

func (f *faultyWatchClient) watches() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.watchCount
}

func (f *faultyWatchClient) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if _, ok := list.(*nodeslov1alpha1.NodeSLORolloutList); ok {
		f.mu.Lock()
		f.listed++
		f.mu.Unlock()
	}
	return f.WithWatch.List(ctx, list, opts...)
}

func (f *faultyWatchClient) Watch(ctx context.Context, list client.ObjectList,
	opts ...client.ListOption) (watch.Interface, error) {
	if _, ok := list.(*nodeslov1alpha1.NodeSLORolloutList); !ok {
		return f.WithWatch.Watch(ctx, list, opts...)
	}
	f.mu.Lock()
	f.watchCount++
	first := f.watchCount == 1
	f.mu.Unlock()
	switch {
	case first && f.fault == closeFirstWatch:
		return watch.NewEmptyWatch(), nil
	case first && f.fault == expireFirstWatch:
		events := make(chan watch.Event, 1)
		status := apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d", 1)).Status()
		events <- watch.Event{Type: watch.Error, Object: &status}
		close(events)
		return watch.NewProxyWatcher(events), nil
	}
	return f.WithWatch.Watch(ctx, list, opts...)
}
