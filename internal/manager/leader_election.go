package manager

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"k8s.io/client-go/tools/leaderelection"
)

// LeaderElectionTimings are the Lease settings of leader election.
//
// A graceful stop hands the Lease over at once (the manager releases it on
// cancel), so these only matter when the leader dies without releasing it
// (SIGKILL, OOM, a lost node): the other replica takes over about
// LeaseDuration after the last renewal it saw, plus up to two RetryPeriods
// of polling. make test-e2e measures it (test/e2e/leader_election_test.go).
//
// The defaults are controller-runtime's (and kube-controller-manager's):
// 15s, 10s, 2s. Shorter ones would shorten a takeover that costs nothing but
// delay (a NodeSLO not yet updated keeps its last value on the node), at the
// price of a leader that gives up, and exits, whenever the apiserver does not
// answer for RenewDeadline, e.g. during a control-plane upgrade.
type LeaderElectionTimings struct {
	// LeaseDuration is how long a non-leader waits, after it last saw the
	// Lease renewed, before it takes the Lease over.
	LeaseDuration time.Duration
	// RenewDeadline is how long the leader keeps trying to renew before it
	// gives up leading (the manager then exits).
	RenewDeadline time.Duration
	// RetryPeriod is the interval between attempts to acquire or renew.
	RetryPeriod time.Duration
}

// defaultLeaderElectionTimings returns controller-runtime's defaults.
func defaultLeaderElectionTimings() LeaderElectionTimings {
	return LeaderElectionTimings{
		LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second,
	}
}

// bindFlags registers one flag per timing on fs.
func (t *LeaderElectionTimings) bindFlags(fs *flag.FlagSet) {
	fs.DurationVar(&t.LeaseDuration, "leader-elect-lease-duration", t.LeaseDuration,
		"How long a non-leader waits, after the Lease was last renewed, before it takes the Lease over.")
	fs.DurationVar(&t.RenewDeadline, "leader-elect-renew-deadline", t.RenewDeadline,
		"How long the leader retries renewing the Lease before it stops leading; shorter than the lease duration.")
	fs.DurationVar(&t.RetryPeriod, "leader-elect-retry-period", t.RetryPeriod,
		"Interval between attempts to acquire or renew the Lease; shorter than the renew deadline divided by 1.2.")
}

// validate rejects timings that client-go's leader election would reject or
// that would let two leaders overlap, naming the flags involved.
func (t LeaderElectionTimings) validate() error {
	var errs []error
	for _, d := range []struct {
		flag  string
		value time.Duration
	}{
		{"--leader-elect-lease-duration", t.LeaseDuration},
		{"--leader-elect-renew-deadline", t.RenewDeadline},
		{"--leader-elect-retry-period", t.RetryPeriod},
	} {
		if d.value <= 0 {
			errs = append(errs, fmt.Errorf("%s=%s: must be positive", d.flag, d.value))
		}
	}
	if errs != nil {
		return errors.Join(errs...)
	}
	if t.RenewDeadline >= t.LeaseDuration {
		errs = append(errs, fmt.Errorf(
			"--leader-elect-renew-deadline=%s must be shorter than --leader-elect-lease-duration=%s: "+
				"a leader must give up before another replica may take the Lease over", t.RenewDeadline, t.LeaseDuration))
	}
	// Attempts are spaced by up to RetryPeriod × JitterFactor.
	if t.RenewDeadline <= time.Duration(leaderelection.JitterFactor*float64(t.RetryPeriod)) {
		errs = append(errs, fmt.Errorf(
			"--leader-elect-retry-period=%s must be shorter than --leader-elect-renew-deadline=%s divided by %g: "+
				"the leader needs more than one attempt to renew before it gives up",
			t.RetryPeriod, t.RenewDeadline, leaderelection.JitterFactor))
	}
	return errors.Join(errs...)
}
