package main

import (
	"context"
	"os"
	"strconv"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// profileAPIServer takes a CPU profile of kube-apiserver (its
// /debug/pprof, served to the admin) for seconds into path, in the
// background. Beside the manager's profile it shows what the apiserver
// spends on the manager's writes and watches against the floor's.
func profileAPIServer(ctx context.Context, admin *rest.Config, seconds int, path string) <-chan error {
	done := make(chan error, 1)
	go func() {
		cfg := rest.CopyConfig(admin)
		cfg.Timeout = 0
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			done <- err
			return
		}
		profile, err := cs.Discovery().RESTClient().Get().AbsPath("/debug/pprof/profile").
			Param("seconds", strconv.Itoa(seconds)).DoRaw(ctx)
		if err == nil {
			err = os.WriteFile(path, profile, 0o644)
		}
		done <- err
	}()
	return done
}
