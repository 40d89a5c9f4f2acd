package nodecluster

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
)

// HostState is what of the host a run changes and must put back: the
// sysctls, and which of the default host paths exist.
type HostState struct {
	Sysctls   map[string]string
	HostPaths []string
}

// ReadHostState reads the host's state now.
func ReadHostState() (HostState, error) {
	sysctls, err := ReadSysctls()
	if err != nil {
		return HostState{}, err
	}
	var present []string
	for _, path := range hostPaths {
		if _, err := os.Lstat(path); err == nil {
			present = append(present, path)
		}
	}
	return HostState{Sysctls: sysctls, HostPaths: present}, nil
}

// Diff describes how s differs from before (nothing when equal).
func (s HostState) Diff(before HostState) []string {
	var diffs []string
	for _, name := range slices.Sorted(maps.Keys(before.Sysctls)) {
		if s.Sysctls[name] != before.Sysctls[name] {
			diffs = append(diffs, fmt.Sprintf("sysctl %s is %s, was %s", name, s.Sysctls[name], before.Sysctls[name]))
		}
	}
	for _, path := range s.HostPaths {
		if !slices.Contains(before.HostPaths, path) {
			diffs = append(diffs, fmt.Sprintf("%s exists, did not before", path))
		}
	}
	return diffs
}

// Residue lists what a run left behind in dir and on the host: nothing,
// after Stop.
func Residue(dir string) []string {
	l := Layout{Dir: dir}
	var left []string
	if mounts, err := mountsUnder(dir); err != nil || len(mounts) > 0 {
		left = append(left, fmt.Sprintf("mounts under %s: %v %v", dir, mounts, err))
	}
	if pids := shimPIDs(l.ContainerdSocket()); len(pids) > 0 {
		left = append(left, fmt.Sprintf("containerd shims: %v", pids))
	}
	if mounts, err := cgroupMounts(); err == nil {
		for _, mount := range mounts {
			if _, err := os.Stat(filepath.Join(mount, cgroupRoot)); err == nil {
				left = append(left, "cgroup "+filepath.Join(mount, cgroupRoot))
			}
		}
	}
	if numbers, chains, err := cniRules(); err != nil || len(numbers) > 0 {
		left = append(left, fmt.Sprintf("iptables nat POSTROUTING rules of %s: chains %v %v", cniNetwork, chains, err))
	}
	left = append(left, kubeChainsLeft()...)
	if err := bridgeLeft(); err != nil {
		left = append(left, err.Error())
	}
	for _, path := range append([]string{l.SavedSysctls(), absentPathsFile(l)}, l.runState()...) {
		if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
			left = append(left, path)
		}
	}
	return left
}

func bridgeLeft() error {
	if _, err := os.Stat(filepath.Join("/sys/class/net", cniBridge)); err == nil {
		return fmt.Errorf("link %s", cniBridge)
	}
	return nil
}
