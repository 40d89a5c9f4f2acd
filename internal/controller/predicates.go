package controller

import (
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// nodeInputsChanged lets through only the Node events that can change the
// node's NodeSLO: create, delete, a change of what the node contributes
// (sloconfig.SameNodeInputs), and another Node under the same name (a
// new UID: deleted and created again while a watch was down, which a
// relist shows as an update). Everything else, above all the status updates
// a kubelet sends every few seconds (which still bump resourceVersion on a
// metadata-only watch), is dropped before it reaches the queue.
func nodeInputsChanged() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			if e.ObjectOld == nil || e.ObjectNew == nil || e.ObjectOld.GetUID() != e.ObjectNew.GetUID() {
				return true
			}
			return !sloconfig.SameNodeInputs(e.ObjectOld, e.ObjectNew)
		},
	}
}

// configurationLoaded drops Node and NodeSLO events while no configuration
// has been loaded: such a reconcile could only skip, and the first load
// asks for every Node and every orphaned NodeSLO anyway (everyNode), so
// that a start-up costs one reconcile per node, not two.
func configurationLoaded(published *snapshots) predicate.Predicate {
	return predicate.NewPredicateFuncs(func(client.Object) bool { return published.config() != nil })
}
