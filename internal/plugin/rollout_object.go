package plugin

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// The rollout's state and the operator's controls live on the
// NodeSLORollout of the same namespace and name as the ConfigMap, not on the
// ConfigMap, which a GitOps tool may own and sync back (issue 41): the
// operator creates it, the controller writes its status; `rollout pause`,
// `resume` and `retry` write its spec's controls, and nothing else.

// pluginFieldManager is the field manager of every write of the plugin: an
// undo's (which the revision it makes names as who changed the ConfigMap)
// and the NodeSLORollout's spec.
const pluginFieldManager = "kubectl-nodeslo"

// nodeSLORolloutName is how the messages name the NodeSLORollout of ref.
func nodeSLORolloutName(ref ConfigMapRef) string { return "NodeSLORollout " + ref.String() }

// getNodeSLORollout reads the NodeSLORollout of ref; nil, and no error, when
// it does not exist (the controller has not created it yet). An apiserver
// that does not serve the kind is an error that says so.
func getNodeSLORollout(
	ctx context.Context, c client.Reader, ref ConfigMapRef,
) (*nodeslov1alpha1.NodeSLORollout, error) {
	obj := &nodeslov1alpha1.NodeSLORollout{}
	switch err := c.Get(ctx, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, obj); {
	case apierrors.IsNotFound(err):
		return nil, nil
	case meta.IsNoMatchError(err):
		return nil, fmt.Errorf("reading %s: the cluster does not serve NodeSLORollouts (%s): "+
			"install the CRD of this version of the controller: %w",
			nodeSLORolloutName(ref), nodeslov1alpha1.GroupVersion, err)
	case err != nil:
		return nil, fmt.Errorf("reading %s: %w", nodeSLORolloutName(ref), err)
	}
	return obj, nil
}

// recordOf is the controller's rollout record that obj's status holds (no
// record when obj is nil or has none).
func recordOf(obj *nodeslov1alpha1.NodeSLORollout) (rollout.Record, error) {
	if obj == nil {
		return rollout.Record{}, nil
	}
	rec, err := rollout.RecordOf(obj.Status.RolloutRecord)
	if err != nil {
		return rollout.Record{}, fmt.Errorf("status.rolloutRecord does not parse: %w", err)
	}
	return rec, nil
}

// specOf is obj's spec (the zero spec when obj is nil).
func specOf(obj *nodeslov1alpha1.NodeSLORollout) nodeslov1alpha1.NodeSLORolloutSpec {
	if obj == nil {
		return nodeslov1alpha1.NodeSLORolloutSpec{}
	}
	return obj.Spec
}

// sameSecond reports whether a names the time t to the second, as the
// controller compares a halt's time.
func sameSecond(a *nodeslov1alpha1.HaltReference, t time.Time) bool {
	return a != nil && rollout.SameSecond(a.HaltedAt.Time, t)
}

// haltReference names the halt at t (of configuration, "" for a resume).
func haltReference(configuration string, t time.Time) *nodeslov1alpha1.HaltReference {
	return &nodeslov1alpha1.HaltReference{Configuration: configuration,
		HaltedAt: metav1.NewTime(t.UTC().Truncate(time.Second))}
}

// specPatch is the part of the spec a command writes: only the fields set
// are sent, so that a field another operator set stays as it is.
type specPatch struct {
	Paused *bool                          `json:"paused,omitempty"`
	Resume *nodeslov1alpha1.HaltReference `json:"resume,omitempty"`
	Retry  *nodeslov1alpha1.HaltReference `json:"retry,omitempty"`
}

// writeSpec writes p into the spec of ref's NodeSLORollout with a JSON
// merge patch, under the plugin's field manager. Nothing else is written:
// not the ConfigMap, not the status, and no NodeSLORollout is created (one
// without spec.strategy holds no rollout to control).
func writeSpec(ctx context.Context, c client.Client, ref ConfigMapRef, p specPatch) error {
	// A struct of a bool and two references always marshals.
	body, _ := json.Marshal(map[string]specPatch{"spec": p})
	obj := &nodeslov1alpha1.NodeSLORollout{ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name}}
	if err := c.Patch(ctx, obj, client.RawPatch(types.MergePatchType, body),
		client.FieldOwner(pluginFieldManager)); err != nil {
		return fmt.Errorf("writing the spec of %s: %w", nodeSLORolloutName(ref), err)
	}
	return nil
}
