package plugin

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
)

// statusSource is where `rollout status` reads the status: Next returns it
// as it stands, at once the first time, and after that once the ConfigMap
// or the NodeSLORollout changed.
type statusSource interface {
	Next(ctx context.Context) (RolloutStatus, error)
}

// readOnce reads the status with a get of each object: --watch=false,
// which needs no more than get.
type readOnce struct {
	c   client.Reader
	key client.ObjectKey
}

func (r readOnce) Next(ctx context.Context) (RolloutStatus, error) {
	return FetchRolloutStatus(ctx, r.c, r.key)
}

// rolloutWatch follows the ConfigMap and its NodeSLORollout with a watch
// each (object_watch.go), as `kubectl rollout status` follows a
// Deployment: the wait sees a change of either as soon as the apiserver
// sends it, and asks nothing in between.
type rolloutWatch struct {
	ref                ConfigMapRef
	configMap, rollout *objectWatch
	changed            chan struct{}
	failed             chan error
}

// watchRollout starts the watches of key's ConfigMap and NodeSLORollout;
// they end with ctx.
func watchRollout(ctx context.Context, c client.WithWatch, key client.ObjectKey) *rolloutWatch {
	ref := ConfigMapRef{Namespace: key.Namespace, Name: key.Name}
	w := &rolloutWatch{ref: ref, changed: make(chan struct{}, 1), failed: make(chan error, 2)}
	w.configMap = &objectWatch{c: c, key: key, what: "ConfigMap " + ref.String(), changed: w.changed,
		newList: func() client.ObjectList { return &corev1.ConfigMapList{} }}
	w.rollout = &objectWatch{c: c, key: key, what: nodeSLORolloutName(ref), changed: w.changed,
		newList: func() client.ObjectList { return &nodeslov1alpha1.NodeSLORolloutList{} }}
	for _, o := range []*objectWatch{w.configMap, w.rollout} {
		go func() {
			if err := o.run(ctx); err != nil {
				w.failed <- err
			}
		}()
	}
	return w
}

// Next waits for both objects to be listed, the first time, and for a
// change of either after that, and returns the status they make.
func (w *rolloutWatch) Next(ctx context.Context) (RolloutStatus, error) {
	for {
		select {
		case <-ctx.Done():
			return RolloutStatus{}, ctx.Err()
		case err := <-w.failed:
			return RolloutStatus{}, err
		case <-w.changed:
		}
		cm, cmListed := w.configMap.state()
		obj, objListed := w.rollout.state()
		if !cmListed || !objListed {
			continue
		}
		configMap, _ := cm.(*corev1.ConfigMap)
		nodeSLORollout, _ := obj.(*nodeslov1alpha1.NodeSLORollout)
		return NewRolloutStatus(w.ref, configMap, nodeSLORollout), nil
	}
}
