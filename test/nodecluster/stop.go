package nodecluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Stop stops the cluster and puts the host back as it was:
//  1. kube-scheduler and kube-controller-manager stop, so that nothing
//     makes new pods;
//  2. every pod is deleted and the kubelet given a minute to stop them,
//     through containerd and CNI DEL (which removes the pods' iptables rules
//     and network namespaces and releases their addresses);
//  3. the kubelet, containerd, kube-apiserver and etcd stop, each by PID;
//  4. cleanup removes whatever the pods left anyway (see cleanup).
//
// It returns an error if anything is left behind (Residue).
func (c *Cluster) Stop(ctx context.Context) error {
	var errs []error
	for _, name := range []string{"kube-scheduler", "kube-controller-manager"} {
		c.process(name).stop(30 * time.Second)
	}
	if c.kubelet != nil && c.kubelet.running() && c.process("kube-apiserver").running() {
		if err := c.deletePods(ctx, time.Minute); err != nil {
			errs = append(errs, fmt.Errorf("deleting the pods (the cleanup removes what they left): %w", err))
		}
	}
	for _, p := range slices.Backward(c.processes) {
		p.stop(30 * time.Second)
	}
	c.processes, c.kubelet = nil, nil
	if err := c.cleanup(); err != nil {
		errs = append(errs, err)
	}
	if left := Residue(c.layout.Dir); len(left) > 0 {
		errs = append(errs, fmt.Errorf("left behind: %v", left))
	}
	return errors.Join(errs...)
}

// stopProcess stops one component (SIGTERM, SIGKILL after 30 s) and
// forgets it, so that Stop does not stop it again.
func (c *Cluster) stopProcess(p *process) {
	p.stop(30 * time.Second)
	c.processes = slices.DeleteFunc(c.processes, func(q *process) bool { return q == p })
}

// process returns the running component of that name (nil if none).
func (c *Cluster) process(name string) *process {
	for _, p := range c.processes {
		if p.name == name {
			return p
		}
	}
	return nil
}

// deletePods deletes every pod and waits until the kubelet has stopped them
// all (it removes a deleted pod's object once its containers are gone).
func (c *Cluster) deletePods(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	pods := c.clientset.CoreV1().Pods(metav1.NamespaceAll)
	list, err := pods.List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, pod := range list.Items {
		deleteOptions := metav1.DeleteOptions{GracePeriodSeconds: new(int64(5))}
		err := c.clientset.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, deleteOptions)
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	for {
		list, err := pods.List(ctx, metav1.ListOptions{})
		if err == nil && len(list.Items) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			if err == nil {
				err = fmt.Errorf("%d pods still there", len(list.Items))
			}
			return fmt.Errorf("%w: %w", ctx.Err(), err)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// CleanUp removes what a crashed or killed run left in dir and on the host
// (Start does it too, first).
func CleanUp(dir string) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	c := &Cluster{layout: Layout{Dir: dir}}
	return c.cleanup()
}

// cleanup removes what a run leaves when it was not stopped in order (it
// crashed, was killed, or a pod's teardown failed), and the run's state.
// In order: processes a previous run recorded; the pods' processes (by the
// PIDs in the cluster's cgroups) and containerd's shims (by PID); every mount
// under the directory (the pods' volumes and network namespaces, container
// root filesystems, the kubelet's root); the bridge plugin's iptables rules,
// kube-proxy's and the kubelet's KUBE-* chains, and the bridge; the cgroups;
// the sysctls; host paths the run created; and the state directories.
// logs/ and the files of install-node-packages.sh stay.
func (c *Cluster) cleanup() error {
	l := c.layout
	steps := []struct {
		what string
		run  func() error
	}{
		{"stopping recorded processes", func() error { return stopRecorded(l, 30*time.Second) }},
		{"killing the pods' processes", killCgroupProcesses},
		{"killing containerd's shims", func() error { killShims(l.ContainerdSocket()); return nil }},
		{"unmounting", func() error { return unmountUnder(l.Dir) }},
		{"removing iptables rules", removeCNIRules},
		{"removing KUBE-* iptables chains", removeKubeChains},
		{"removing the bridge", removeBridge},
		{"removing cgroups", removeCgroupRoot},
		{"restoring sysctls", func() error { return restoreSysctls(l) }},
		{"removing host paths", func() error { return removeHostPaths(l) }},
		{"removing state", c.removeState},
	}
	var errs []error
	for _, step := range steps {
		if err := step.run(); err != nil {
			errs = append(errs, fmt.Errorf("cleanup, %s: %w", step.what, err))
		}
	}
	return errors.Join(errs...)
}

// removeState removes the run's directories, and only once nothing is
// mounted below them any more (RemoveAll would descend into a mount).
func (c *Cluster) removeState() error {
	l := c.layout
	if mounts, err := mountsUnder(l.Dir); err != nil || len(mounts) > 0 {
		return fmt.Errorf("still mounted under %s, not removing it: %v %v", l.Dir, mounts, err)
	}
	var errs []error
	for _, path := range l.runState() {
		errs = append(errs, os.RemoveAll(path))
	}
	return errors.Join(errs...)
}
