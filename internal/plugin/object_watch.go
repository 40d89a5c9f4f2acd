package plugin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	watchtools "k8s.io/client-go/tools/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// objectWatch follows one object by name, as `kubectl get NAME --watch`
// does: a list selecting it by metadata.name gives its state and a
// resourceVersion to watch from; client-go's RetryWatcher then follows its
// changes, and, when the apiserver closes the watch (as it does every few
// minutes) or the connection drops, watches again from the last
// resourceVersion seen. When that resourceVersion has expired (410 Gone:
// the apiserver no longer holds the changes since), nothing can resume
// from it: the object is listed again. Selecting by name, the list and the
// watch carry one object at most, and RBAC authorizes them by resourceNames
// as it does a get.
type objectWatch struct {
	c       client.WithWatch
	key     client.ObjectKey
	what    string                   // the object in messages: "ConfigMap ns/name"
	newList func() client.ObjectList // an empty list of the object's kind

	mu      sync.Mutex
	current client.Object // nil: it does not exist
	listed  bool          // the first list is in

	changed chan<- struct{} // told, without blocking, after each list and each change
}

// errWatchExpired ends a watch whose resourceVersion expired.
var errWatchExpired = errors.New("the watch's resourceVersion expired")

// state returns the object as last seen (nil: absent) and whether it was
// listed yet.
func (w *objectWatch) state() (client.Object, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.current, w.listed
}

func (w *objectWatch) set(obj client.Object) {
	w.mu.Lock()
	w.current, w.listed = obj, true
	w.mu.Unlock()
	select {
	case w.changed <- struct{}{}:
	default: // a change is already told: the reader reads the state anew
	}
}

// run follows the object until ctx ends (nil) or an error the watch cannot
// get past: the list or the watch refused (forbidden, a kind the cluster
// does not serve), or an error the apiserver sent in the watch.
func (w *objectWatch) run(ctx context.Context) error {
	for {
		resourceVersion, err := w.list(ctx)
		if err != nil {
			return err
		}
		switch err := w.follow(ctx, resourceVersion); {
		case errors.Is(err, errWatchExpired):
			continue
		case ctx.Err() != nil:
			return nil
		default:
			return err
		}
	}
}

// selector is the list and watch options selecting the object by name.
func (w *objectWatch) selector(raw *metav1.ListOptions) *client.ListOptions {
	return &client.ListOptions{Namespace: w.key.Namespace,
		FieldSelector: fields.OneTermEqualSelector("metadata.name", w.key.Name), Raw: raw}
}

// list reads the object's state and returns the list's resourceVersion.
func (w *objectWatch) list(ctx context.Context) (string, error) {
	list := w.newList()
	if err := w.c.List(ctx, list, w.selector(&metav1.ListOptions{})); err != nil {
		return "", w.failed("listing", err)
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return "", err
	}
	var obj client.Object
	for _, item := range items {
		if o, ok := item.(client.Object); ok && o.GetName() == w.key.Name {
			obj = o
		}
	}
	w.set(obj)
	return list.GetResourceVersion(), nil
}

// follow applies the changes from resourceVersion on, until the watch ends.
func (w *objectWatch) follow(ctx context.Context, resourceVersion string) error {
	rw, err := watchtools.NewRetryWatcherWithContext(ctx, resourceVersion, w)
	if err != nil {
		return err
	}
	defer rw.Stop()
	for event := range rw.ResultChan() {
		switch event.Type {
		case watch.Added, watch.Modified:
			if obj, ok := event.Object.(client.Object); ok && obj.GetName() == w.key.Name {
				w.set(obj)
			}
		case watch.Deleted:
			if obj, ok := event.Object.(client.Object); ok && obj.GetName() == w.key.Name {
				w.set(nil)
			}
		case watch.Error:
			err := apierrors.FromObject(event.Object)
			if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
				return errWatchExpired
			}
			return w.failed("watching", err)
		}
	}
	// The RetryWatcher ends only when ctx does, or after an error event.
	return ctx.Err()
}

// WatchWithContext starts a watch of the object from options'
// resourceVersion, for the RetryWatcher. An expiry the apiserver answers
// the request with, rather than sends in the watch, is handed on as the
// watch's error event: the RetryWatcher would otherwise retry the same
// resourceVersion forever.
func (w *objectWatch) WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
	watcher, err := w.c.Watch(ctx, w.newList(), w.selector(&options))
	if !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
		return watcher, err
	}
	status := metav1.Status{Status: metav1.StatusFailure, Code: http.StatusGone, Reason: metav1.StatusReasonExpired,
		Message: err.Error()}
	if s, ok := errors.AsType[*apierrors.StatusError](err); ok {
		status = s.Status()
	}
	events := make(chan watch.Event, 1)
	events <- watch.Event{Type: watch.Error, Object: &status}
	close(events)
	return watch.NewProxyWatcher(events), nil
}

// failed is the error of doing what to the object.
func (w *objectWatch) failed(doing string, err error) error {
	if meta.IsNoMatchError(err) {
		return fmt.Errorf("%s %s: the cluster does not serve its kind: install the CRD of this version of the "+
			"controller: %w", doing, w.what, err)
	}
	return fmt.Errorf("%s %s: %w", doing, w.what, err)
}
