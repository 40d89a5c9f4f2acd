// Command pause is the pod sandbox image of the local cluster (and, with
// -listen, its smoke test's container): it waits until SIGTERM or SIGINT and
// reaps the zombies it inherits as a pod's PID 1, like Kubernetes' own pause.
// With -check-apiserver it is instead the smoke test's in-cluster client of
// the apiserver, through the kubernetes Service.
// It is built statically and packed into an OCI image by
// hack/cluster/install-node-packages.sh, since no registry is reachable.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	listen := flag.String("listen", "", "also answer HTTP on this address (e.g. :8080): 200 on every path, for probes")
	apiserver := flag.Bool("check-apiserver", false,
		"instead of waiting: reach the apiserver as an in-cluster client does (the kubernetes Service, "+
			"the pod's token and CA), print its version and the pod's user, and exit")
	flag.Parse()

	if *apiserver {
		if err := checkAPIServer(); err != nil {
			fmt.Fprintf(os.Stderr, "apiserver: %v\n", err)
			os.Exit(1)
		}
		return
	}

	signals := make(chan os.Signal, 8)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)

	if *listen != "" {
		fmt.Fprintf(os.Stderr, "pause: answering HTTP on %s\n", *listen)
		go func() {
			err := serve(*listen)
			fmt.Fprintf(os.Stderr, "pause: %v\n", err)
			os.Exit(1)
		}()
	}

	for sig := range signals {
		if sig == syscall.SIGCHLD {
			reap()
			continue
		}
		fmt.Fprintf(os.Stderr, "pause: %v, exiting\n", sig)
		return
	}
}

// reap collects every child that has exited, without blocking.
func reap() {
	for {
		var status syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}
