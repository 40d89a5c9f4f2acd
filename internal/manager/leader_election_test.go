package manager

import (
	"flag"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("The leader election flags", func() {
	parse := func(args ...string) (Options, error) {
		opts := DefaultOptions()
		fs := flag.NewFlagSet("manager", flag.ContinueOnError)
		opts.BindFlags(fs)
		Expect(fs.Parse(args)).To(Succeed())
		return opts, opts.LeaderElectionTimings.validate()
	}

	It("default to controller-runtime's 15s, 10s and 2s, which are valid", func() {
		opts, err := parse()
		Expect(err).NotTo(HaveOccurred())
		Expect(opts.LeaderElectionTimings).To(Equal(LeaderElectionTimings{
			LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second,
		}))
	})

	It("set the three timings", func() {
		opts, err := parse("--leader-elect-lease-duration=8s", "--leader-elect-renew-deadline=6s",
			"--leader-elect-retry-period=1s")
		Expect(err).NotTo(HaveOccurred())
		Expect(opts.LeaderElectionTimings).To(Equal(LeaderElectionTimings{
			LeaseDuration: 8 * time.Second, RenewDeadline: 6 * time.Second, RetryPeriod: time.Second,
		}))
	})

	DescribeTable("reject timings that would let leaders overlap, naming the flags",
		func(args []string, message string) {
			_, err := parse(args...)
			Expect(err).To(MatchError(ContainSubstring(message)))
		},
		Entry("renew deadline not shorter than the lease",
			[]string{"--leader-elect-lease-duration=10s"},
			"--leader-elect-renew-deadline=10s must be shorter than --leader-elect-lease-duration=10s"),
		Entry("retry period too close to the renew deadline (client-go jitters it by 1.2)",
			[]string{"--leader-elect-renew-deadline=5s", "--leader-elect-retry-period=5s"},
			"--leader-elect-retry-period=5s must be shorter than --leader-elect-renew-deadline=5s divided by 1.2"),
		Entry("a zero duration",
			[]string{"--leader-elect-retry-period=0s"}, "--leader-elect-retry-period=0s: must be positive"),
	)

	It("are checked by New before anything starts", func() {
		opts := DefaultOptions()
		opts.LeaderElectionTimings.RenewDeadline = time.Minute
		_, err := New(nil, opts)
		Expect(err).To(MatchError(ContainSubstring("leader election: --leader-elect-renew-deadline=1m0s must be shorter")))
	})
})
