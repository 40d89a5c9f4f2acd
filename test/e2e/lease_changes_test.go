//go:build e2e

package e2e

import (
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/utils/ptr"
)

// leaseChanges follows the leader-election Lease from look to look and
// checks that each change of holder is clean: the new holder took the Lease
// no earlier than the lease duration after the last renewal (or release)
// seen of the one before, which is what keeps two replicas from leading at
// once (docs/behaviour.md#faults, "a stale leader"). client-go's candidates
// wait that long from when they saw the record change, on the same clock
// as the holder's renewTime here (one machine), so an earlier acquireTime
// means a replica took over a Lease it had no right to.
type leaseChanges struct {
	last *coordinationv1.LeaseSpec
	// firstTransitions is spec.leaseTransitions at the first look; changes
	// counts the new holders seen since.
	firstTransitions int32
	changes          int
	// renewed and acquired are, for each change seen, the last renewal of
	// the holder before and when the new holder acquired the Lease.
	renewed, acquired []time.Time
}

// holderOf is the Lease's holder ("": released or never held).
func holderOf(spec *coordinationv1.LeaseSpec) string {
	if spec.HolderIdentity == nil {
		return ""
	}
	return *spec.HolderIdentity
}

// observe takes the Lease as a look read it and returns what was not clean
// about its change since the look before ("": nothing).
func (l *leaseChanges) observe(spec coordinationv1.LeaseSpec) string {
	previous := l.last
	l.last = spec.DeepCopy()
	if previous == nil {
		l.firstTransitions = ptr.Deref(spec.LeaseTransitions, 0)
		return ""
	}
	holder := holderOf(&spec)
	if holder == holderOf(previous) || holder == "" {
		return ""
	}
	l.changes++
	if spec.AcquireTime == nil || previous.RenewTime == nil || previous.LeaseDurationSeconds == nil {
		return fmt.Sprintf("the Lease went from %q to %q without the times to judge the change: %+v then %+v",
			holderOf(previous), holder, *previous, spec)
	}
	l.renewed, l.acquired = append(l.renewed, previous.RenewTime.Time), append(l.acquired, spec.AcquireTime.Time)
	expired := previous.RenewTime.Add(time.Duration(*previous.LeaseDurationSeconds) * time.Second)
	if spec.AcquireTime.Time.Before(expired) {
		return fmt.Sprintf("%q acquired the Lease at %s, %s before %q's, renewed at %s, expired",
			holder, spec.AcquireTime.Format(time.RFC3339Nano), expired.Sub(spec.AcquireTime.Time),
			holderOf(previous), previous.RenewTime.Format(time.RFC3339Nano))
	}
	return ""
}

// unseen is how many holders the Lease had that no look saw: the
// transitions it counts beyond the changes seen (each new holder raises
// spec.leaseTransitions by one; a release does not).
func (l *leaseChanges) unseen() int {
	if l.last == nil {
		return 0
	}
	return int(ptr.Deref(l.last.LeaseTransitions, 0)-l.firstTransitions) - l.changes
}
