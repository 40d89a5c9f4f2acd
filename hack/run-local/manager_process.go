package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// managerProcess is bin/manager running as a child, the binary users deploy.
type managerProcess struct {
	cmd *exec.Cmd
	// exited is closed when the process has ended; err is then its outcome.
	exited chan struct{}
	err    error
}

// startManager runs the manager in its own process group, so that this
// program decides when it stops (before the control plane it talks to), and
// with a parent-death signal, so that it never outlives this program.
func startManager(binary, kubeconfig string, args []string) (*managerProcess, error) {
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", binary, err)
	}
	p := &managerProcess{cmd: cmd, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// stop asks the manager to shut down (SIGTERM, as the kubelet does) and kills
// its process group if it has not exited within grace.
func (p *managerProcess) stop(grace time.Duration) {
	pgid := p.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(grace):
		logf("manager did not stop within %s; killing it", grace)
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.exited
	}
}
