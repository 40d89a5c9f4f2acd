package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// instanceLock makes a second run-local fail fast instead of starting a
// second control plane over the same kubeconfig and etcd data. It is an
// advisory flock, so the kernel releases it when the holder dies, even by
// SIGKILL: a stale lock file never blocks the next run.
type instanceLock struct{ file *os.File }

func acquireInstanceLock(path string) (*instanceLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening the lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(path)
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("run-local is already running (pid %s, lock %s): "+
				"use it, or stop it with Ctrl-C in its terminal (or kill %[1]s) first",
				strings.TrimSpace(string(holder)), path)
		}
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	if err := f.Truncate(0); err != nil {
		return nil, fmt.Errorf("writing the lock file: %w", err)
	}
	if _, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0); err != nil {
		return nil, fmt.Errorf("writing the lock file: %w", err)
	}
	return &instanceLock{file: f}, nil
}

// release removes the lock file and lets the next run start.
func (l *instanceLock) release() {
	_ = os.Remove(l.file.Name())
	_ = l.file.Close()
}
