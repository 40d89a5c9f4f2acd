package nodecluster

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// shimPIDs returns the containerd shims of the cluster's containerd: they
// are started by it but run on their own (a new session, re-parented), so
// that containers survive a containerd restart; each names its containerd's
// socket after -address.
func shimPIDs(socket string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")
		if !strings.HasPrefix(filepath.Base(args[0]), "containerd-shim") {
			continue
		}
		for i := 0; i+1 < len(args); i++ {
			if args[i] == "-address" && args[i+1] == socket {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// killShims kills the cluster's shims by PID (containerd is stopped by
// then, and their containers were killed with their cgroups) and waits
// briefly for them to go.
func killShims(socket string) {
	for _, pid := range shimPIDs(socket) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(shimPIDs(socket)) > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
}
