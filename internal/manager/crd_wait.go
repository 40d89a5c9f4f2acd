package manager

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/controller"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// crdPollInterval is how often a manager started without the NodeSLO CRD
// looks for it again: the controllers start within about this long of the
// CRD being installed.
const crdPollInterval = 2 * time.Second

// nodeSLOKind is the NodeSLO's group and kind, rolloutKind the
// NodeSLORollout's: the controllers need both CRDs.
var (
	nodeSLOKind = schema.GroupKind{Group: slov1alpha1.GroupVersion.Group, Kind: "NodeSLO"}
	rolloutKind = schema.GroupKind{Group: nodeslov1alpha1.GroupVersion.Group, Kind: "NodeSLORollout"}
)

// projectCRDs are the kinds of the project's CRDs, with what a mapping of
// each says before the CRD is installed (newCache), and the message that
// names the CRD missing and how to install it.
var projectCRDs = map[schema.GroupKind]struct {
	mapping meta.RESTMapping
	missing func() string
}{
	nodeSLOKind: {meta.RESTMapping{Resource: slov1alpha1.GroupVersion.WithResource("nodeslos"),
		GroupVersionKind: slov1alpha1.GroupVersion.WithKind("NodeSLO"), Scope: meta.RESTScopeRoot},
		sloconfig.CRDMissingMessage},
	rolloutKind: {meta.RESTMapping{Resource: nodeslov1alpha1.GroupVersion.WithResource("nodeslorollouts"),
		GroupVersionKind: nodeslov1alpha1.GroupVersion.WithKind("NodeSLORollout"), Scope: meta.RESTScopeNamespace},
		sloconfig.RolloutCRDMissingMessage},
}

// served reports whether the apiserver serves the kind; err is set when
// discovery failed for another reason than the CRD's absence.
func served(mapper meta.RESTMapper, kind schema.GroupKind) (bool, error) {
	_, err := mapper.RESTMapping(kind, projectCRDs[kind].mapping.GroupVersionKind.Version)
	switch {
	case err == nil:
		return true, nil
	case meta.IsNoMatchError(err):
		return false, nil
	default:
		return false, err
	}
}

// allServed reports whether the apiserver serves both CRDs' kinds; when
// report is set, it logs an error for each one it does not.
func allServed(mapper meta.RESTMapper, log logr.Logger, report bool) bool {
	all := true
	for _, kind := range []schema.GroupKind{nodeSLOKind, rolloutKind} {
		ok, err := served(mapper, kind)
		all = all && ok
		switch {
		case ok || !report:
		case err != nil:
			log.Error(err, "Cannot tell whether the "+kind.Kind+" CRD is installed; checking again every few seconds")
		default:
			log.Error(errors.New(projectCRDs[kind].missing()), kind.Kind+" CRD not installed")
		}
	}
	return all
}

// setupControllers adds the controllers at once when the NodeSLO CRD is
// installed. Otherwise it logs one error naming the CRD and how to install
// it, keeps the manager not ready, and adds the controllers as soon as the
// CRD appears, without a restart (docs/behaviour.md#crd-version-skew): a
// manager that exited instead would crash-loop with an error that names
// no fix. A CRD deleted later fails /readyz as well (crds_served.go).
func setupControllers(mgr ctrl.Manager, opts Options) error {
	log := mgr.GetLogger().WithName("crd")
	served, err := newCRDsServed(mgr.GetConfig(), log)
	if err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("nodeslo-crds-served", served.check); err != nil {
		return fmt.Errorf("adding the CRDs' ready check: %w", err)
	}
	if allServed(mgr.GetRESTMapper(), log, true) {
		return controller.SetupWithManager(mgr, opts.Controllers)
	}
	var started atomic.Bool
	if err := mgr.AddReadyzCheck("nodeslo-crd", func(*http.Request) error {
		if !started.Load() {
			return errors.New("the project's CRDs are not installed (" + sloconfig.NodeSLOCRDName + ", " +
				sloconfig.NodeSLORolloutCRDName + ")")
		}
		return nil
	}); err != nil {
		return fmt.Errorf("adding the NodeSLO CRD ready check: %w", err)
	}
	return mgr.Add(&crdWait{run: func(ctx context.Context) error {
		err := wait.PollUntilContextCancel(ctx, crdPollInterval, false, func(context.Context) (bool, error) {
			return allServed(mgr.GetRESTMapper(), log, false), nil
		})
		if err != nil {
			return nil // stopped before the CRD came
		}
		if err := controller.SetupWithManager(mgr, opts.Controllers); err != nil {
			return err
		}
		started.Store(true)
		log.Info("CRDs installed; controllers started")
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

// newCache builds the manager's cache with a mapper that knows the scope
// of the project's kinds before their CRDs are installed: the cache asks
// the scope of every kind it is configured for when it is built, and would
// otherwise fail the manager's construction.
func newCache(config *rest.Config, opts cache.Options) (cache.Cache, error) {
	opts.Mapper = crdScopesKnown{RESTMapper: opts.Mapper}
	return cache.New(config, opts)
}

// crdScopesKnown answers a mapping of the project's kinds the apiserver
// does not serve yet from what the API types say.
type crdScopesKnown struct {
	meta.RESTMapper
}

func (m crdScopesKnown) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	mapping, err := m.RESTMapper.RESTMapping(gk, versions...)
	if crd, ours := projectCRDs[gk]; ours && err != nil && meta.IsNoMatchError(err) {
		known := crd.mapping
		return &known, nil
	}
	return mapping, err
}
