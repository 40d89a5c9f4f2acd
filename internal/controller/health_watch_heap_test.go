package controller

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/watchlist"
	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
	"github.com/nodeslo/nodeslo-controller/test/localcluster"
)

// The health gate's Pod watch holds what it counts, not what it reads
// (docs/rollout.md#evictions): 300 selected Pods of 1.4 MiB each, 420 MiB
// in all, leave the live heap within tens of MiB of what it was, whether
// client-go lists them (the manager's default, --watch-list-client=false;
// and what a watch falls back to against an apiserver without WatchList)
// or streams them (--watch-list-client=true).
const (
	largePods       = 300
	largePodBytes   = 1400 << 10
	largePodNodes   = 30
	largePodsKilled = 30 // one Pod in ten shows a container killed
	// maxLiveGrowth is how much the live heap may grow while the watch
	// lists: a few pages of whole Pods, not the list.
	maxLiveGrowth = 48 << 20
)

func TestHealthWatchHoldsPodsByCountNotSize(t *testing.T) {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		t.Fatal("KUBEBUILDER_ASSETS is not set: make test sets it (hack/setup-envtest.sh prints the directory)")
	}
	// The suite's logger (envtest logs through controller-runtime's, whose
	// first setting is the one kept): the same as the Ginkgo suite of this
	// binary sets later.
	envtestharness.LogToGinkgo()
	// etcd without fsync: the Pods' 420 MiB are written in seconds.
	cluster, err := localcluster.Start(localcluster.Options{AssetsDir: assets,
		CRDDir:    filepath.Join("..", "..", "config", "crd", "bases"),
		EtcdFlags: map[string]string{"unsafe-no-fsync": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cluster.Stop(); err != nil {
			t.Error(err)
		}
	})
	start := time.Now()
	createLargePods(t.Context(), t, cluster.Admin)
	t.Logf("%d Pods of %d KiB created in %s", largePods, largePodBytes>>10, time.Since(start).Round(time.Millisecond))
	for _, c := range []struct {
		name      string
		watchList bool
	}{
		{"listed in pages", false},
		{"streamed", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			watchlist.Set(c.watchList)
			defer watchlist.Reset()
			observeLargePods(t, cluster.Admin)
		})
	}
}

// observeLargePods starts a health watch counting the large Pods and
// checks what it saw and how much the live heap grew while it listed.
func observeLargePods(t *testing.T, admin *rest.Config) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	runtime.GC()
	before := liveHeap()
	peak := sampleLiveHeap(ctx)
	watch, err := newHealthWatch(admin, make(chan event.GenericEvent, 1))
	if err != nil {
		t.Fatal(err)
	}
	stopped := make(chan struct{})
	go func() { _ = watch.Start(ctx); close(stopped) }()
	defer func() { cancel(); <-stopped }()
	gate := &rollout.HealthGate{Conditions: []corev1.NodeConditionType{corev1.NodeReady},
		PodSelector:   labels.SelectorFromSet(labels.Set{rollout.BestEffortLabel: rollout.BestEffortClass}),
		PodNamespaces: []string{largePodNamespace}}
	start := time.Now()
	// As the controller does, ask again while the watch is still listing:
	// on a loaded machine a list may take longer than one wait.
	seen, err := watch.observe(ctx, gate)
	for err != nil && time.Since(start) < 5*time.Minute {
		t.Logf("after %s: %v", time.Since(start).Round(time.Second), err)
		seen, err = watch.observe(ctx, gate)
	}
	if err != nil {
		t.Fatal(err)
	}
	listed := time.Since(start)
	growth := int64(peak()) - int64(before)
	t.Logf("%d Pods of %d KiB listed in %s: live heap %.1f MiB before, at most %+.1f MiB while listing",
		largePods, largePodBytes>>10, listed.Round(time.Millisecond), float64(before)/(1<<20),
		float64(growth)/(1<<20))
	evictions := 0
	for _, h := range seen {
		evictions += len(h.Evictions)
	}
	if evictions != largePodsKilled {
		t.Errorf("the watch saw %d evictions, want %d", evictions, largePodsKilled)
	}
	if growth > maxLiveGrowth {
		t.Errorf("the live heap grew by %d MiB while the watch listed %d Pods of %d KiB, more than %d MiB",
			growth>>20, largePods, largePodBytes>>10, maxLiveGrowth>>20)
	}
}

// largePodNamespace holds the large Pods.
const largePodNamespace = "large-pods"

// createLargePods creates largePods best-effort Pods of about
// largePodBytes each (a container's arguments) on largePodNodes nodes, and
// reports a killed container on largePodsKilled of them, four at a time.
func createLargePods(ctx context.Context, t *testing.T, admin *rest.Config) {
	t.Helper()
	cfg := rest.CopyConfig(admin)
	cfg.ContentType = kruntime.ContentTypeProtobuf
	cfg.QPS, cfg.Burst = -1, 0 // unthrottled: client-go's 5 a second would take a minute
	clients, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := clients.CoreV1().Namespaces().Create(ctx,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: largePodNamespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	arg := strings.Repeat("x", 100<<10)
	args := make([]string, largePodBytes/len(arg))
	for i := range args {
		args[i] = arg
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	next := make(chan int)
	for range 4 {
		wg.Go(func() {
			for i := range next {
				if err := createLargePod(ctx, clients, i, args); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		})
	}
	for i := range largePods {
		next <- i
	}
	close(next)
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("%d Pods not created, the first: %v", len(errs), errs[0])
	}
}

func createLargePod(ctx context.Context, clients kubernetes.Interface, i int, args []string) error {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("large-%03d", i), Namespace: largePodNamespace,
			Labels: map[string]string{rollout.BestEffortLabel: rollout.BestEffortClass}},
		Spec: corev1.PodSpec{NodeName: fmt.Sprintf("node-%02d", i%largePodNodes),
			Containers: []corev1.Container{{Name: "large", Image: "registry.k8s.io/pause:3.10", Args: args}}},
	}
	pods := clients.CoreV1().Pods(largePodNamespace)
	created, err := pods.Create(ctx, pod, metav1.CreateOptions{})
	if err != nil || i%(largePods/largePodsKilled) != 0 {
		return err
	}
	finished := metav1.NewTime(time.Now().Add(-time.Minute))
	created.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "large", RestartCount: 1,
		Image: "registry.k8s.io/pause:3.10", ImageID: "registry.k8s.io/pause@sha256:0", ContainerID: "containerd://1",
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: finished}},
		LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: 137, Reason: "Error", FinishedAt: finished}}}}
	_, err = pods.UpdateStatus(ctx, created, metav1.UpdateOptions{})
	return err
}

// liveHeapMetric is the heap the last garbage collection found live.
const liveHeapMetric = "/gc/heap/live:bytes"

func liveHeap() uint64 {
	s := []metrics.Sample{{Name: liveHeapMetric}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// sampleLiveHeap samples the live heap every millisecond until ctx ends
// or the function it returns is called, which returns the largest sample.
func sampleLiveHeap(ctx context.Context) func() uint64 {
	var (
		mu   sync.Mutex
		peak uint64
	)
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			mu.Lock()
			peak = max(peak, liveHeap())
			mu.Unlock()
			select {
			case <-ctx.Done():
				return
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-stopped
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}

// A page weighs about podListPageBytes: Pods of 1.4 MiB come a few at a
// time, Pods of a few KiB 500 at a time, and a page is never empty.
func TestNextPodListPageWeighsAboutEightMiB(t *testing.T) {
	for _, c := range []struct {
		limit int64
		bytes int
		want  int64
	}{
		{firstPodListPage, firstPodListPage * largePodBytes, 5},
		{5, 5 * largePodBytes, 5},
		{firstPodListPage, firstPodListPage * 8 << 10, 500},
		{100, 100 * 64 << 10, 128},
		{1, 16 << 20, 1},
		{4, 0, maxPodListPage},
	} {
		if got := nextPodListPage(c.limit, c.bytes); got != c.want {
			t.Errorf("after %d Pods of %d bytes: %d, want %d", c.limit, c.bytes, got, c.want)
		}
	}
}
