// Package managertest runs the manager inside a test process, built exactly
// as cmd/ builds it, for the envtest suites that need the real thing.
package managertest

import (
	"context"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/nodeslo/nodeslo-controller/internal/manager"
)

// Options are the manager's defaults with what a test process needs: no
// metrics or probe listeners unless the test asks for them, and controller
// names reusable, since one process builds several managers in turn.
func Options() manager.Options {
	opts := manager.DefaultOptions()
	opts.MetricsBindAddress = "0"
	opts.HealthProbeBindAddress = "0"
	opts.SkipControllerNameValidation = true
	return opts
}

// Running is a manager started by Start.
type Running struct {
	// Manager is the started manager, for its webhook server, Elected
	// channel and the like.
	Manager ctrl.Manager

	cancel context.CancelFunc
	// exited is closed once Start has returned, err what it returned.
	exited chan struct{}
	err    error
}

// Start builds the manager with opts against cfg and starts it in the
// background.
func Start(cfg *rest.Config, opts manager.Options) (*Running, error) {
	mgr, err := manager.New(cfg, opts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &Running{Manager: mgr, cancel: cancel, exited: make(chan struct{})}
	go func() {
		r.err = mgr.Start(ctx)
		close(r.exited)
	}()
	return r, nil
}

// Exited reports whether the manager has stopped, on its own or by Stop,
// and what Start returned: a test waiting for the manager's work can
// stop waiting, and say why, when it failed to start.
func (r *Running) Exited() (bool, error) {
	select {
	case <-r.exited:
		return true, r.err
	default:
		return false, nil
	}
}

// Stop cancels the manager and waits until it has returned, its Lease
// released when it held one; it returns what Start returned. Calling it
// again returns the same.
func (r *Running) Stop() error {
	r.cancel()
	<-r.exited
	return r.err
}
