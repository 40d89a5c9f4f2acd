package plugin

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/internal/crdprobe"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// CheckAgainstCRD asks the cluster, by a server-side dry run of the node's
// resolved spec, which of its values the installed NodeSLO CRD drops
// (docs/behaviour.md#crd-version-skew), lists them, and compares the stored
// NodeSLO with the resolved spec without them, as the controller does. The
// dry run needs the permission to create NodeSLOs; without it the
// explanation says that it could not check.
func (e *Explanation) CheckAgainstCRD(ctx context.Context, c client.Client) {
	dropped, err := crdprobe.Dropped(ctx, c, &e.resolved)
	if err != nil {
		e.CRDCheckProblem = err.Error()
		return
	}
	e.CRDChecked = true
	for _, path := range dropped {
		e.DroppedByCRD = append(e.DroppedByCRD, DroppedValue{
			Key: sloconfig.KeyOfPath(path), Path: path, Values: sloconfig.ValuesAt(&e.resolved, path),
		})
	}
	if e.stored != nil && len(dropped) > 0 {
		without := sloconfig.WithoutPaths(&e.resolved, dropped)
		e.DifferingSections = differingSections(e.stored, &without)
	}
}

// DroppedValue is a configured value of the node that its NodeSLO cannot
// carry, since the installed CRD drops its field.
type DroppedValue struct {
	Key  sloconfig.Key `json:"key,omitempty"`
	Path string        `json:"path"`
	// Values are the configured values, as JSON (one per list element for
	// a path inside a list).
	Values []string `json:"values"`
}
