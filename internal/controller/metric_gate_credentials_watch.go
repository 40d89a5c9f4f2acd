package controller

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/event"
)

// credentialsRecheckInterval is how often the credentials directory is
// read for a change: the kubelet itself takes up to a minute or so to
// update a mounted Secret after the operator changed it.
const credentialsRecheckInterval = 30 * time.Second

// credentialsWatch wakes the rollout controller when the entries of
// the credentials directory, or their addresses files, change: the
// strategy is checked against them at each reconcile, and a strategy
// refused for want of an address must be taken up once the operator added
// it, not at the next change of the NodeSLORollout or the ConfigMap. The
// kubelet updates a mounted Secret with no event the manager could watch,
// so the directory is read at an interval: a few small files.
type credentialsWatch struct {
	limits  keyLimits
	changed chan<- event.GenericEvent
	// seen is what the directory held at the last look ("": no look yet).
	seen string
}

// Start reads the directory until ctx ends; without one, it returns at once.
func (w *credentialsWatch) Start(ctx context.Context) error {
	if w.limits.dir == "" {
		return nil
	}
	wait.UntilWithContext(ctx, func(context.Context) { w.look() }, credentialsRecheckInterval)
	return nil
}

// look reads the directory and signals when it differs from the last
// look; it reports whether it signalled.
func (w *credentialsWatch) look() bool {
	// fmt prints a map's keys sorted: the same entries print the same.
	now := fmt.Sprintf("%+v", w.limits.now().Credentials)
	changed := w.seen != "" && now != w.seen
	w.seen = now
	if !changed {
		return false
	}
	trySignal(w.changed, event.GenericEvent{Object: &corev1.ConfigMap{}}) // a pending one's reconcile reads the directory
	return true
}
