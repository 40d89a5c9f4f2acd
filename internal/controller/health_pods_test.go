package controller

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// podWith is a Pod on node whose containers' last terminations have the
// exit codes and finish times given, one container each.
func podWith(uid, node string, exit []int32, finished []time.Time) *corev1.Pod {
	pod := &corev1.Pod{}
	pod.UID, pod.Namespace, pod.Name, pod.Spec.NodeName = types.UID("uid-"+uid), "jobs", uid, node
	pod.Labels = map[string]string{"koordinator.sh/qosClass": "BE", "app": "x"}
	pod.Annotations = map[string]string{"big": "value"}
	for i := range exit {
		pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, corev1.ContainerStatus{
			Name: fmt.Sprintf("c%d", i), Image: "busybox", RestartCount: 3,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(finished[i])}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: exit[i], Reason: "Error", Message: "killed", FinishedAt: metav1.NewTime(finished[i])}},
		})
	}
	return pod
}

func cut(t *testing.T, pod *corev1.Pod) *corev1.Pod {
	t.Helper()
	out, err := keepEvictionFacts(pod)
	if err != nil {
		t.Fatal(err)
	}
	return out.(*corev1.Pod)
}

func TestKeepEvictionFactsKeepsOnlyWhatTheGateCounts(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	pod := podWith("p", "n1", []int32{137, 0}, []time.Time{t0, t0.Add(time.Second)})
	pod.Status.Conditions = []corev1.PodCondition{
		{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0)},
		{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "EvictionByEvictionAPI",
			LastTransitionTime: metav1.NewTime(t0.Add(2 * time.Second))},
	}
	got := cut(t, pod)
	if got.Labels != nil || got.Annotations != nil || got.Name != "p" || got.Namespace != "jobs" ||
		got.Spec.NodeName != "n1" || got.UID != pod.UID {
		t.Errorf("metadata kept: %+v, node %q", got.ObjectMeta, got.Spec.NodeName)
	}
	if len(got.Status.ContainerStatuses) != 1 || got.Status.ContainerStatuses[0].Name != "c0" ||
		got.Status.ContainerStatuses[0].State.Running != nil ||
		*got.Status.ContainerStatuses[0].LastTerminationState.Terminated != (corev1.ContainerStateTerminated{
			ExitCode: 137, FinishedAt: metav1.NewTime(t0)}) {
		t.Errorf("container statuses kept: %+v", got.Status.ContainerStatuses)
	}
	if len(got.Status.Conditions) != 1 || got.Status.Conditions[0].Type != corev1.DisruptionTarget ||
		got.Status.Conditions[0].Reason != "" {
		t.Errorf("conditions kept: %+v", got.Status.Conditions)
	}
	want := []podEviction{{container: "c0", at: t0}, {at: t0.Add(2 * time.Second), disruption: true}}
	if ev := evictionsOf(got); fmt.Sprint(ev) != fmt.Sprint(want) {
		t.Errorf("evictions %v, want %v", ev, want)
	}

	// A Pod of many containers keeps its newest terminations only.
	many := make([]int32, 40)
	finished := make([]time.Time, 40)
	for i := range many {
		many[i], finished[i] = 137, t0.Add(time.Duration(i)*time.Second)
	}
	got = cut(t, podWith("q", "n1", many, finished))
	if n := len(got.Status.ContainerStatuses); n != maxEvictionsKeptPerPod {
		t.Fatalf("%d container statuses kept of 40, want %d", n, maxEvictionsKeptPerPod)
	}
	for _, c := range got.Status.ContainerStatuses {
		if c.LastTerminationState.Terminated.FinishedAt.Time.Before(finished[40-maxEvictionsKeptPerPod]) {
			t.Errorf("an older termination kept: %s", c.Name)
		}
	}
}

// A container killed again and again shows one termination at a time in
// its Pod's status: each one seen counts, the same one seen twice once,
// up to maxEvictionsKeptPerPod per Pod; a deleted Pod's count stays.
func TestPodEvictionsGathersEveryTerminationSeen(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	p := newPodEvictions()
	var pod *corev1.Pod
	for i := range 4 {
		pod = cut(t, podWith("p", "n1", []int32{137}, []time.Time{t0.Add(time.Duration(i) * 10 * time.Second)}))
		if !p.observe(pod) {
			t.Errorf("termination %d not seen as new", i)
		}
		if p.observe(pod) {
			t.Errorf("termination %d seen twice as new", i)
		}
	}
	if p.observe(cut(t, podWith("ok", "n1", []int32{0}, []time.Time{t0}))) {
		t.Error("an exit code 0 counted")
	}
	out := map[string]rollout.NodeHealth{}
	p.addTo(out)
	if n := len(out["n1"].Evictions); n != 4 || len(out) != 1 {
		t.Fatalf("evictions %+v, want 4 on n1", out)
	}

	p.forget(toolscache.DeletedFinalStateUnknown{Key: "jobs/p", Obj: pod})
	out = map[string]rollout.NodeHealth{}
	p.addTo(out)
	if n := len(out["n1"].Evictions); n != 4 {
		t.Errorf("after the Pod's deletion %d evictions, want 4", n)
	}

	for i := range 3 * maxEvictionsKeptPerPod {
		p.observe(cut(t, podWith("r", "n2", []int32{1}, []time.Time{t0.Add(time.Duration(i) * time.Second)})))
	}
	out = map[string]rollout.NodeHealth{}
	p.addTo(out)
	if ev := out["n2"].Evictions; len(ev) != maxEvictionsKeptPerPod ||
		!ev[0].At.Equal(t0.Add(2*maxEvictionsKeptPerPod*time.Second)) {
		t.Errorf("a Pod evicted %d times kept %d evictions from %v, want the newest %d",
			3*maxEvictionsKeptPerPod, len(ev), ev[0].At, maxEvictionsKeptPerPod)
	}
}

func TestPodEvictionsForgetsTheOldestDeletedPodPastTheBound(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	p := newPodEvictions()
	for i := range maxDeletedPodsKept + 1 {
		pod := cut(t, podWith(fmt.Sprintf("p%d", i), "n1", []int32{137}, []time.Time{t0.Add(time.Duration(i) * time.Second)}))
		p.observe(pod)
		p.forget(pod)
	}
	if len(p.pods) != maxDeletedPodsKept || p.pods["uid-p0"] != nil {
		t.Errorf("%d deleted Pods kept (want %d), the oldest kept: %t",
			len(p.pods), maxDeletedPodsKept, p.pods["uid-p0"] != nil)
	}
}
