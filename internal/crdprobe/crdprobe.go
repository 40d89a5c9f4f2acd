// Package crdprobe asks the apiserver which fields of a NodeSLO spec the
// installed NodeSLO CRD drops, by a server-side dry run that stores nothing
// (docs/behaviour.md#crd-version-skew). The controller, the admission
// webhook and `kubectl nodeslo` share it; the comparison itself is
// sloconfig.DroppedPaths.
package crdprobe

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// GenerateName prefixes the name the apiserver makes up for the dry-run
// NodeSLO; no object of that name is ever stored.
const GenerateName = "nodeslo-crd-probe-"

// Dropped creates a NodeSLO with spec in a server-side dry run and returns,
// sorted, the paths of the fields the apiserver's answer lacks: those the
// installed CRD prunes. It needs the permission to create NodeSLOs, which
// the manager has.
func Dropped(ctx context.Context, c client.Client, spec *slov1alpha1.NodeSLOSpec) ([]string, error) {
	slo := &slov1alpha1.NodeSLO{
		ObjectMeta: metav1.ObjectMeta{GenerateName: GenerateName},
		Spec:       *spec.DeepCopy(),
	}
	if err := c.Create(ctx, slo, client.DryRunAll); err != nil {
		return nil, fmt.Errorf("dry-run create of a NodeSLO, to find the fields the installed CRD drops: %w", err)
	}
	return sloconfig.DroppedPaths(spec, &slo.Spec), nil
}

// ConfigDropped returns the fields of cfg, any strategy's, that the
// installed CRD drops: one dry run of cfg.ProbeSpec. That union of every
// strategy can break a cross-field rule of the CRD (a cluster strategy's
// memoryEvictThresholdPercent beside a node strategy's
// memoryEvictLowerPercent, as in the samples); the apiserver then refuses
// it as Invalid, and each strategy is dry-run alone instead
// (cfg.StrategySpecs), each a spec the controller could write.
func ConfigDropped(ctx context.Context, c client.Client, cfg *sloconfig.Config) ([]string, error) {
	probe := cfg.ProbeSpec()
	dropped, err := Dropped(ctx, c, &probe)
	if !apierrors.IsInvalid(err) {
		return dropped, err
	}
	all := sets.New[string]()
	for _, spec := range cfg.StrategySpecs() {
		paths, err := Dropped(ctx, c, &spec)
		if err != nil {
			return nil, err
		}
		all.Insert(paths...)
	}
	return sets.List(all), nil
}
