package nodecluster

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Host paths that a kubelet, containerd or the CNI plugins use by default.
// The cluster points them into its directory where a setting allows; four
// are fixed in the code of the versions used here:
//   - /var/log/containers: the kubelet links each container's log there,
//     whatever its podLogsDir;
//   - /var/lib/kubelet/device-plugins: the kubelet's device-plugin socket,
//     whatever its root directory;
//   - /run/containerd/s: containerd 1.6's shims' sockets;
//   - /var/lib/cni/results: libcni's cache of each pod's CNI result.
//
// The others are watched, to show that nothing was written there: the last
// four are koordlet's defaults, which StartKoordlet points into the
// cluster's directory. The cluster expects no other kubelet, containerd or
// koordlet on the host.
var hostPaths = []string{
	"/var/log/containers",
	"/var/log/pods",
	"/var/lib/kubelet",
	"/var/lib/containerd",
	"/run/containerd",
	"/opt/containerd",
	"/var/lib/cni",
	"/etc/cni",
	"/var/run/koordlet",
	"/var/log/koordlet",
	"/metric-data",
	"/etc/runtime",
}

func absentPathsFile(l Layout) string { return l.path("host-paths.absent") }

// recordAbsentPaths notes which host paths do not exist before the run (a
// crashed run's note is kept: it describes the host before that run).
func recordAbsentPaths(l Layout) error {
	if _, err := os.Stat(absentPathsFile(l)); err == nil {
		return nil
	}
	var absent []string
	for _, path := range hostPaths {
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
			absent = append(absent, path)
		}
	}
	return os.WriteFile(absentPathsFile(l), []byte(strings.Join(absent, "\n")+"\n"), 0o644)
}

// removeHostPaths removes what the run wrote into host paths that existed
// before it (the container log links into the cluster directory, libcni's
// cached results of the cluster's network), then each host path the run
// created, with what is in it.
func removeHostPaths(l Layout) error {
	var errs []error
	if entries, err := os.ReadDir("/var/log/containers"); err == nil {
		for _, e := range entries {
			link := filepath.Join("/var/log/containers", e.Name())
			if target, err := os.Readlink(link); err == nil && strings.HasPrefix(target, l.Dir+"/") {
				errs = append(errs, os.Remove(link))
			}
		}
	}
	errs = append(errs, removeCNIResults())
	created, err := createdHostPaths(l)
	if err != nil {
		return err
	}
	for _, path := range created {
		if mounts, err := mountsUnder(path); err != nil || len(mounts) > 0 {
			errs = append(errs, fmt.Errorf("not removing %s, still mounted below it: %v %v", path, mounts, err))
			continue
		}
		errs = append(errs, os.RemoveAll(path))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if err := os.Remove(absentPathsFile(l)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// createdHostPaths returns the host paths that were absent before the run
// and exist now.
func createdHostPaths(l Layout) ([]string, error) {
	data, err := os.ReadFile(absentPathsFile(l))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var created []string
	for path := range strings.FieldsSeq(string(data)) {
		if _, err := os.Lstat(path); err == nil {
			created = append(created, path)
		}
	}
	return created, nil
}

// removeCNIResults removes libcni's cached results of the cluster's pods:
// <network>-<sandbox>-eth0 and, for the same sandboxes, containerd's
// cni-loopback-<sandbox>-lo.
func removeCNIResults() error {
	const results = "/var/lib/cni/results"
	entries, err := os.ReadDir(results)
	if err != nil {
		return nil
	}
	var errs []error
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), cniNetwork+"-")
		if !ok {
			continue
		}
		sandbox, _, _ := strings.Cut(rest, "-")
		for _, name := range []string{e.Name(), "cni-loopback-" + sandbox + "-lo"} {
			if err := os.Remove(filepath.Join(results, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}
