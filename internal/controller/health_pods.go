package controller

import (
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// The health gate's eviction input (docs/rollout.md#health-gates): the
// evictions of the gate's Pods as their status reports them, written by
// the kubelet of the Pod's node (a container's termination) and by the
// apiserver (the DisruptionTarget condition of an eviction through the
// API). An Event, which anyone may create, is never read.

const (
	// maxEvictionsKeptPerPod bounds what is kept of one Pod: its newest
	// evictions. A node is unhealthy past maxPerNode, so a Pod evicted more
	// often than this is already counted as often as it matters.
	maxEvictionsKeptPerPod = 16
	// maxDeletedPodsKept bounds the deleted Pods whose evictions are kept
	// while the gate watches (a Pod evicted through the API is deleted
	// after its grace period; its eviction still counts); past it, the
	// Pod evicted longest ago is forgotten.
	maxDeletedPodsKept = 10000
)

// podEviction is one eviction seen on a Pod: a container's termination
// with a non-zero exit code (container names it) or, with disruption, the
// Pod's DisruptionTarget condition set True. at has seconds only, as the
// apiserver keeps it.
type podEviction struct {
	container  string
	at         time.Time
	disruption bool
}

// keepEvictionFacts cuts a Pod down to what the gate counts: its
// namespace, name, UID and node, the newest maxEvictionsKeptPerPod
// container terminations with a non-zero exit code (state or last state,
// with their exit code and finish time only), and its DisruptionTarget
// condition when True.
func keepEvictionFacts(in any) (any, error) {
	pod, ok := in.(*corev1.Pod)
	if !ok {
		return in, nil // a tombstone
	}
	out := &corev1.Pod{}
	out.Namespace, out.Name, out.UID, out.ResourceVersion = pod.Namespace, pod.Name, pod.UID, pod.ResourceVersion
	out.Spec.NodeName = pod.Spec.NodeName
	for _, c := range pod.Status.ContainerStatuses {
		kept := corev1.ContainerStatus{Name: c.Name,
			State: corev1.ContainerState{Terminated: nonZeroTermination(c.State.Terminated)},
			LastTerminationState: corev1.ContainerState{
				Terminated: nonZeroTermination(c.LastTerminationState.Terminated)}}
		if kept.State.Terminated != nil || kept.LastTerminationState.Terminated != nil {
			out.Status.ContainerStatuses = append(out.Status.ContainerStatuses, kept)
		}
	}
	if len(out.Status.ContainerStatuses) > maxEvictionsKeptPerPod {
		slices.SortFunc(out.Status.ContainerStatuses, func(a, b corev1.ContainerStatus) int {
			return newestFinish(b).Compare(newestFinish(a))
		})
		out.Status.ContainerStatuses = out.Status.ContainerStatuses[:maxEvictionsKeptPerPod]
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue {
			out.Status.Conditions = []corev1.PodCondition{{Type: c.Type, Status: c.Status,
				LastTransitionTime: c.LastTransitionTime}}
		}
	}
	return out, nil
}

// nonZeroTermination keeps of a termination its exit code and finish time,
// when the exit code is not zero (nil otherwise: a container that
// completed was not evicted).
func nonZeroTermination(t *corev1.ContainerStateTerminated) *corev1.ContainerStateTerminated {
	if t == nil || t.ExitCode == 0 {
		return nil
	}
	return &corev1.ContainerStateTerminated{ExitCode: t.ExitCode, FinishedAt: t.FinishedAt}
}

// newestFinish is the later finish time of a kept container status.
func newestFinish(c corev1.ContainerStatus) time.Time {
	var out time.Time
	for _, t := range []*corev1.ContainerStateTerminated{c.State.Terminated, c.LastTerminationState.Terminated} {
		if t != nil && t.FinishedAt.After(out) {
			out = t.FinishedAt.Time
		}
	}
	return out
}

// evictionsOf lists the evictions a Pod cut by keepEvictionFacts shows.
func evictionsOf(pod *corev1.Pod) []podEviction {
	var out []podEviction
	for _, c := range pod.Status.ContainerStatuses {
		for _, t := range []*corev1.ContainerStateTerminated{c.State.Terminated, c.LastTerminationState.Terminated} {
			if t != nil && t.ExitCode != 0 {
				out = append(out, podEviction{container: c.Name, at: t.FinishedAt.Time})
			}
		}
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue {
			out = append(out, podEviction{at: c.LastTransitionTime.Time, disruption: true})
		}
	}
	return out
}

// podEvictions gathers, while the gate watches, every eviction seen of each
// Pod: the kubelet's status keeps only a container's last termination, so
// a container killed and restarted again and again shows one at a time,
// and a Pod evicted through the API is deleted after its grace period.
// The Pod watch's handlers fold into it; the gate's snapshot reads it.
type podEvictions struct {
	mu      sync.Mutex
	pods    map[types.UID]*podRecord
	deleted int
}

// podRecord is what is kept of one Pod: its node, its newest evictions
// (at most maxEvictionsKeptPerPod, oldest first), whether it was deleted.
type podRecord struct {
	node      string
	evictions []podEviction
	deleted   bool
}

func newPodEvictions() *podEvictions {
	return &podEvictions{pods: map[types.UID]*podRecord{}}
}

// observe folds what pod shows into its record, and reports whether it
// showed an eviction not seen before.
func (p *podEvictions) observe(pod *corev1.Pod) bool {
	seen := evictionsOf(pod)
	if len(seen) == 0 {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	rec := p.pods[pod.UID]
	if rec == nil {
		rec = &podRecord{}
		p.pods[pod.UID] = rec
	}
	rec.node = pod.Spec.NodeName
	added := false
	for _, e := range seen {
		if !slices.Contains(rec.evictions, e) {
			rec.evictions = append(rec.evictions, e)
			added = true
		}
	}
	if added {
		slices.SortStableFunc(rec.evictions, func(a, b podEviction) int { return a.at.Compare(b.at) })
		if extra := len(rec.evictions) - maxEvictionsKeptPerPod; extra > 0 {
			rec.evictions = slices.Delete(rec.evictions, 0, extra)
		}
	}
	return added
}

// forget notes that a Pod was deleted: its evictions still count, until
// more than maxDeletedPodsKept deleted Pods are kept.
func (p *podEvictions) forget(obj any) {
	if tombstone, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	rec := p.pods[pod.UID]
	if rec == nil || rec.deleted {
		return
	}
	rec.deleted = true
	p.deleted++
	if p.deleted > maxDeletedPodsKept {
		p.dropOldestDeletedLocked()
	}
}

// dropOldestDeletedLocked forgets the deleted Pod whose newest eviction is
// the oldest.
func (p *podEvictions) dropOldestDeletedLocked() {
	var oldest types.UID
	var oldestAt time.Time
	for uid, rec := range p.pods {
		at := rec.evictions[len(rec.evictions)-1].at
		if rec.deleted && (oldest == "" || at.Before(oldestAt)) {
			oldest, oldestAt = uid, at
		}
	}
	delete(p.pods, oldest)
	p.deleted--
}

// addTo adds the evictions kept to the nodes' health in out.
func (p *podEvictions) addTo(out map[string]rollout.NodeHealth) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, rec := range p.pods {
		if rec.node == "" {
			continue
		}
		h := out[rec.node]
		for _, e := range rec.evictions {
			h.Evictions = append(h.Evictions, rollout.Eviction{At: e.at, Disruption: e.disruption})
		}
		out[rec.node] = h
	}
}
