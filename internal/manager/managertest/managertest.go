// Package managertest runs the manager inside a test process, built exactly
// as cmd/ builds it, for the envtest suites that need the real thing.
package managertest

import (
	"context"
	"sync"

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
	done   chan error
	stop   sync.Once
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
	r := &Running{Manager: mgr, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- mgr.Start(ctx) }()
	return r, nil
}

// Stop cancels the manager and waits until it has returned, its Lease
// released when it held one; it returns what Start returned. Calling it
// again returns the same.
func (r *Running) Stop() error {
	r.stop.Do(func() {
		r.cancel()
		r.err = <-r.done
	})
	return r.err
}
