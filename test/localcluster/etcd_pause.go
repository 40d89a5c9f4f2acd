package localcluster

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"
)

// PauseEtcd stops this cluster's etcd with SIGSTOP, as a disk whose fsyncs
// take seconds or a frozen VM would stall it: unlike a crash, its process,
// data and connections stay, so kube-apiserver neither reconnects nor fails
// fast. Every write, and every read that must be consistent (a GET or a
// LIST without resourceVersion=0), waits; what kube-apiserver's watch
// cache holds is still served. Nothing changes until ResumeEtcd.
//
// It returns once every thread of etcd is stopped: kill(2) returns before
// the signal has reached them, and a thread already running on another core
// answers a request or two meanwhile.
func (c *Cluster) PauseEtcd() error {
	pid, err := c.etcdPID()
	if err != nil {
		return err
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		return fmt.Errorf("sending SIGSTOP to etcd (pid %d): %w", pid, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !allThreadsStopped(pid) {
		if time.Now().After(deadline) {
			return fmt.Errorf("etcd (pid %d) not stopped 10 s after SIGSTOP", pid)
		}
		time.Sleep(time.Millisecond)
	}
	return nil
}

// ResumeEtcd sends SIGCONT to etcd after PauseEtcd; etcd then answers
// what it was asked meanwhile. Resuming a running etcd does nothing, so a
// spec may call it on cleanup whatever happened.
func (c *Cluster) ResumeEtcd() error {
	pid, err := c.etcdPID()
	if err != nil {
		return err
	}
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		return fmt.Errorf("sending SIGCONT to etcd (pid %d): %w", pid, err)
	}
	return nil
}

// allThreadsStopped reports whether every thread of pid is in the stopped
// state ('T' in /proc/PID/task/TID/stat, the field after the command name).
func allThreadsStopped(pid int) bool {
	stats, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/[0-9]*/stat", pid))
	if err != nil || len(stats) == 0 {
		return false
	}
	for _, path := range stats {
		raw, err := os.ReadFile(path)
		if err != nil {
			return false
		}
		// The command name, in parentheses, may itself hold spaces or ')'.
		_, after, ok := bytes.Cut(raw[bytes.LastIndexByte(raw, ')')+1:], []byte(" "))
		if !ok || len(after) == 0 || after[0] != 'T' {
			return false
		}
	}
	return true
}

// etcdPID finds this cluster's etcd: the process of that name whose
// arguments name the cluster's own data directory. Other control planes
// (other suites, other users of the machine) run etcds too: the name alone
// could pause theirs.
func (c *Cluster) etcdPID() (int, error) {
	etcd := c.env.ControlPlane.Etcd
	if etcd == nil || etcd.DataDir == "" {
		return 0, errors.New("etcd has not been started")
	}
	want := []byte("--data-dir=" + etcd.DataDir)
	pid, err := findProcess("etcd", func(args [][]byte) bool {
		return slices.ContainsFunc(args, func(arg []byte) bool { return bytes.Equal(arg, want) })
	})
	if err != nil || pid != 0 {
		return pid, err
	}
	return 0, fmt.Errorf("no etcd with --data-dir=%s is running", etcd.DataDir)
}
