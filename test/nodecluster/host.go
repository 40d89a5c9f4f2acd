package nodecluster

import (
	"context"
	"errors"
	"fmt"
)

// PrepareHost cleans up what an earlier run left in dir and on the host,
// then reads the host's state, for StopAndCompare to check against.
func PrepareHost(dir string, logf func(format string, args ...any)) (HostState, error) {
	if left := Residue(dir); len(left) > 0 {
		logf("an earlier run left %v; cleaning up", left)
		if err := CleanUp(dir); err != nil {
			return HostState{}, err
		}
	}
	return ReadHostState()
}

// StopAndCompare stops the cluster and fails if the host's state is not as
// before (PrepareHost's) or anything is left behind.
func (c *Cluster) StopAndCompare(ctx context.Context, before HostState) error {
	stopErr := c.Stop(ctx)
	after, err := ReadHostState()
	if err != nil {
		return errors.Join(stopErr, err)
	}
	c.opts.Logf("host after: sysctls %v; host paths present %v", after.Sysctls, after.HostPaths)
	if diffs := after.Diff(before); len(diffs) > 0 {
		return errors.Join(stopErr, fmt.Errorf("the host differs from before: %v", diffs))
	}
	return stopErr
}
