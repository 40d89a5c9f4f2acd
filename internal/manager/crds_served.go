package manager

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
)

// crdsServedTimeout bounds one discovery request of the check: a probe
// that hangs tells nothing.
const crdsServedTimeout = 5 * time.Second

// crdsServed is the readiness check that the apiserver still serves both
// of the project's CRDs (docs/behaviour.md#faults). A CRD deleted under a
// running manager (by mistake, or an uninstall half done) stops its
// controllers' lists and watches; the manager stays up, as the CRD may
// be installed again and the watches then resume without a restart, but
// it says so: /readyz fails naming the CRD and how to install it, and the
// log says when it went and when it came back. The RESTMapper cannot
// tell: it keeps the mappings it found. So each probe asks discovery for
// the two group versions (two small GETs every few seconds).
type crdsServed struct {
	discovery discovery.DiscoveryInterface
	log       logr.Logger

	mu sync.Mutex
	// state is what the last check found of each kind once seen served: a
	// kind missing since the start is the start's to report (crdWait), once.
	state map[schema.GroupKind]servedState
}

// servedState is a kind's state as the checks saw it.
type servedState int

const (
	kindNeverServed servedState = iota
	kindServed
	kindGone
)

func newCRDsServed(cfg *rest.Config, log logr.Logger) (*crdsServed, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.Timeout = crdsServedTimeout
	client, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("the CRD readiness check's discovery client: %w", err)
	}
	return &crdsServed{discovery: client, log: log, state: map[schema.GroupKind]servedState{}}, nil
}

// check is a healthz.Checker: an error names each CRD not served.
func (c *crdsServed) check(*http.Request) error {
	var errs []error
	for _, kind := range []schema.GroupKind{nodeSLOKind, rolloutKind} {
		ok, err := c.served(kind)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("cannot tell whether the %s CRD is served: %w", kind.Kind, err))
		case !ok:
			errs = append(errs, errors.New(projectCRDs[kind].missing()))
		}
		if err == nil {
			c.note(kind, ok)
		}
	}
	return errors.Join(errs...)
}

// served asks discovery whether the apiserver serves kind's resource.
func (c *crdsServed) served(kind schema.GroupKind) (bool, error) {
	mapping := projectCRDs[kind].mapping
	list, err := c.discovery.ServerResourcesForGroupVersion(mapping.GroupVersionKind.GroupVersion().String())
	switch {
	case apierrors.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, err
	}
	return slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool {
		return r.Name == mapping.Resource.Resource
	}), nil
}

// note logs kind's going and coming back, once each.
func (c *crdsServed) note(kind schema.GroupKind, ok bool) {
	c.mu.Lock()
	was := c.state[kind]
	switch {
	case ok:
		c.state[kind] = kindServed
	case was != kindNeverServed:
		c.state[kind] = kindGone
	}
	c.mu.Unlock()
	switch {
	case was == kindServed && !ok:
		c.log.Error(errors.New(projectCRDs[kind].missing()),
			kind.Kind+" CRD no longer served; /readyz fails until it is installed again")
	case was == kindGone && ok:
		c.log.Info(kind.Kind + " CRD served again")
	}
}
