package localcluster

import (
	"fmt"
	"os/exec"
	"syscall"
	"time"
)

// Process is a child (the manager, for run-local and the e2e suite) in a
// process group of its own, so that its parent decides when it stops (before
// the control plane it talks to) and can end everything it started.
type Process struct {
	cmd    *exec.Cmd
	exited chan struct{}
	err    error
}

// StartProcess starts cmd in a new process group, with a parent-death signal
// so that it never outlives the program that started it.
func StartProcess(cmd *exec.Cmd) (*Process, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", cmd.Path, err)
	}
	p := &Process{cmd: cmd, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// Exited is closed once the process has ended; Err then says how.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Err is the outcome of an ended process.
func (p *Process) Err() error {
	<-p.exited
	return p.err
}

// Running reports whether the process has not ended yet.
func (p *Process) Running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// Stop sends SIGTERM to the process group (as the kubelet does to a pod) and
// SIGKILL if it has not ended within grace; it returns once it has ended.
func (p *Process) Stop(grace time.Duration) {
	pgid := p.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(grace):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.exited
	}
}

// Kill sends SIGKILL to the process group, as an OOM kill or a node loss
// would: no cleanup runs (a leader keeps its lease until it expires). It
// returns once the process has ended.
func (p *Process) Kill() {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.exited
}

// Pause sends SIGSTOP to the process group, as a long GC pause or CPU
// throttling would stall it: it holds whatever it was doing, its Lease
// included, until Resume.
func (p *Process) Pause() { _ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGSTOP) }

// Resume sends SIGCONT to the process group after Pause.
func (p *Process) Resume() { _ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGCONT) }
