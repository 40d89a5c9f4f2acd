package manager

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/controller"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// crdPollInterval is how often a manager started without the NodeSLO CRD
// looks for it again: the controllers start within about this long of the
// CRD being installed.
const crdPollInterval = 2 * time.Second

// nodeSLOKind is the NodeSLO's group and kind.
var nodeSLOKind = schema.GroupKind{Group: slov1alpha1.GroupVersion.Group, Kind: "NodeSLO"}

// nodeSLOServed reports whether the apiserver serves NodeSLOs; err is set
// when discovery failed for another reason than the CRD's absence.
func nodeSLOServed(mapper meta.RESTMapper) (bool, error) {
	_, err := mapper.RESTMapping(nodeSLOKind, slov1alpha1.GroupVersion.Version)
	switch {
	case err == nil:
		return true, nil
	case meta.IsNoMatchError(err):
		return false, nil
	default:
		return false, err
	}
}

// setupControllers adds the controllers at once when the NodeSLO CRD is
// installed. Otherwise it logs one error naming the CRD and how to install
// it, keeps the manager not ready, and adds the controllers as soon as the
// CRD appears, without a restart (docs/behaviour.md#crd-version-skew): a
// manager that exited instead would crash-loop with an error that names
// no fix.
func setupControllers(mgr ctrl.Manager, opts Options) error {
	served, err := nodeSLOServed(mgr.GetRESTMapper())
	if served {
		return controller.SetupWithManager(mgr, opts.Controllers)
	}
	log := mgr.GetLogger().WithName("crd")
	if err != nil {
		log.Error(err, "Cannot tell whether the NodeSLO CRD is installed; checking again every few seconds",
			"crd", sloconfig.NodeSLOCRDName)
	} else {
		log.Error(errors.New(sloconfig.CRDMissingMessage()), "NodeSLO CRD not installed",
			"crd", sloconfig.NodeSLOCRDName)
	}
	var started atomic.Bool
	if err := mgr.AddReadyzCheck("nodeslo-crd", func(*http.Request) error {
		if !started.Load() {
			return fmt.Errorf("the NodeSLO CRD %s is not installed", sloconfig.NodeSLOCRDName)
		}
		return nil
	}); err != nil {
		return fmt.Errorf("adding the NodeSLO CRD ready check: %w", err)
	}
	return mgr.Add(&crdWait{run: func(ctx context.Context) error {
		err := wait.PollUntilContextCancel(ctx, crdPollInterval, false, func(context.Context) (bool, error) {
			served, err := nodeSLOServed(mgr.GetRESTMapper())
			if err != nil {
				log.V(1).Info("Cannot tell yet whether the NodeSLO CRD is installed", "error", err.Error())
			}
			return served, nil
		})
		if err != nil {
			return nil // stopped before the CRD came
		}
		if err := controller.SetupWithManager(mgr, opts.Controllers); err != nil {
			return err
		}
		started.Store(true)
		log.Info("NodeSLO CRD installed; controllers started", "crd", sloconfig.NodeSLOCRDName)
		return nil
	}})
}

// crdWait runs on every replica, leader or not, so that each becomes ready
// once the CRD is there; the controllers it adds wait for the leader Lease.
type crdWait struct {
	run func(context.Context) error
}

func (w *crdWait) Start(ctx context.Context) error { return w.run(ctx) }

func (w *crdWait) NeedLeaderElection() bool { return false }

// newCache builds the manager's cache with a mapper that knows NodeSLOs are
// cluster-scoped before the CRD is installed: the cache asks the scope of
// every kind it is configured for when it is built, and would otherwise
// fail the manager's construction.
func newCache(config *rest.Config, opts cache.Options) (cache.Cache, error) {
	opts.Mapper = nodeSLOScopeKnown{RESTMapper: opts.Mapper}
	return cache.New(config, opts)
}

// nodeSLOScopeKnown answers a NodeSLO mapping the apiserver does not serve
// yet from what the API types say.
type nodeSLOScopeKnown struct {
	meta.RESTMapper
}

func (m nodeSLOScopeKnown) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	mapping, err := m.RESTMapper.RESTMapping(gk, versions...)
	if err != nil && gk == nodeSLOKind && meta.IsNoMatchError(err) {
		gv := slov1alpha1.GroupVersion
		return &meta.RESTMapping{
			Resource:         gv.WithResource("nodeslos"),
			GroupVersionKind: gv.WithKind(gk.Kind),
			Scope:            meta.RESTScopeRoot,
		}, nil
	}
	return mapping, err
}
