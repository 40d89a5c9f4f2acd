package nodecluster

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cgroupRoot is the kubelet's cgroupRoot: the pods' cgroups (kubepods and
// below) are made under it in every hierarchy, so that Stop finds them all.
const cgroupRoot = "nodeslo-cluster"

// cgroupMounts returns the mount points of the cgroup hierarchies (v1
// controllers, the named systemd hierarchy and, on a hybrid host, the
// unified one).
func cgroupMounts() ([]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	var mounts []string
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER
		pre, post, ok := strings.Cut(scanner.Text(), " - ")
		if !ok {
			continue
		}
		fields, fstype := strings.Fields(pre), strings.Fields(post)
		if len(fields) >= 5 && len(fstype) > 0 && (fstype[0] == "cgroup" || fstype[0] == "cgroup2") {
			mounts = append(mounts, fields[4])
		}
	}
	return mounts, scanner.Err()
}

// createCgroupRoot makes the kubelet's cgroup root in every hierarchy (the
// kubelet refuses a cgroupRoot that does not exist). A new cpuset cgroup has
// no CPUs nor memory nodes: it gets its parent's.
func createCgroupRoot() error {
	mounts, err := cgroupMounts()
	if err != nil {
		return err
	}
	for _, mount := range mounts {
		dir := filepath.Join(mount, cgroupRoot)
		if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("creating cgroup %s: %w", dir, err)
		}
		for _, file := range []string{"cpuset.cpus", "cpuset.mems"} {
			parent, err := os.ReadFile(filepath.Join(mount, file))
			if err != nil {
				continue // not the cpuset hierarchy
			}
			if err := os.WriteFile(filepath.Join(dir, file), parent, 0o644); err != nil {
				return fmt.Errorf("initialising %s: %w", filepath.Join(dir, file), err)
			}
		}
	}
	return nil
}

// removeCgroupRoot kills what still runs in the cluster's cgroups (the
// pods' processes, by the PIDs the cgroups list) and removes the cgroups,
// deepest first, in every hierarchy.
func removeCgroupRoot() error {
	mounts, err := cgroupMounts()
	if err != nil {
		return err
	}
	var errs []error
	for _, mount := range mounts {
		root := filepath.Join(mount, cgroupRoot)
		if _, err := os.Stat(root); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err := removeCgroupTree(root); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func removeCgroupTree(root string) error {
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			dirs = append(dirs, path)
		}
		return nil
	})
	if err != nil {
		return err
	}
	// Deepest first: a cgroup with children cannot be removed.
	slices.SortFunc(dirs, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	var errs []error
	for _, dir := range dirs {
		if err := removeCgroup(dir); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// removeCgroup kills the processes of one cgroup and removes it, retrying
// while the killed processes exit.
func removeCgroup(dir string) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		for _, pid := range cgroupPIDs(dir) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		err := syscall.Rmdir(dir)
		if err == nil || errors.Is(err, syscall.ENOENT) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("removing cgroup %s (processes %v): %w", dir, cgroupPIDs(dir), err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func cgroupPIDs(dir string) []int {
	data, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var pids []int
	for field := range strings.FieldsSeq(string(data)) {
		if pid, err := strconv.Atoi(field); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// killCgroupProcesses kills every process in the cluster's cgroups, by PID.
func killCgroupProcesses() error {
	mounts, err := cgroupMounts()
	if err != nil {
		return err
	}
	for _, mount := range mounts {
		_ = filepath.WalkDir(filepath.Join(mount, cgroupRoot), func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				for _, pid := range cgroupPIDs(path) {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			return nil
		})
	}
	return nil
}
