package localcluster

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"syscall"
	"time"
)

// StopAPIServer kills kube-apiserver alone (SIGKILL, as a crash or an OOM
// kill would: requests in flight get no answer) and waits until it is gone;
// etcd keeps running with its data. A graceful stop is no quicker: the
// apiserver waits for its clients' watches to end. Clients see their
// connections refused until StartAPIServer.
func (c *Cluster) StopAPIServer() error {
	pid, err := c.apiServerPID()
	if err != nil {
		return err
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("killing kube-apiserver (pid %d): %w", pid, err)
	}
	// envtest's Stop returns nil once it has seen the process exit.
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := c.env.ControlPlane.APIServer.Stop()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("waiting for the killed kube-apiserver to exit: %w", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// StartAPIServer starts kube-apiserver again after StopAPIServer, over the
// same etcd, on the same address, with the same serving certificate and
// client CA, so that every client made before reconnects by itself. It
// returns once the apiserver reports healthy.
func (c *Cluster) StartAPIServer() error {
	if err := c.env.ControlPlane.APIServer.Start(); err != nil {
		return fmt.Errorf("starting kube-apiserver again: %w", err)
	}
	return nil
}

// apiServerPID finds this cluster's kube-apiserver: the process of that
// name whose arguments name the cluster's own certificate directory.
func (c *Cluster) apiServerPID() (int, error) {
	pid, err := findProcess("kube-apiserver", func(args [][]byte) bool {
		return slices.ContainsFunc(args, func(arg []byte) bool { return bytes.Contains(arg, []byte(c.certDir)) })
	})
	if err != nil || pid != 0 {
		return pid, err
	}
	return 0, errors.New("kube-apiserver is not running")
}
