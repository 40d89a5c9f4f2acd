package envtestharness

import (
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
)

// The waits of every suite. The apiserver and the manager answer within
// milliseconds; the bounds are for a loaded two-core machine running -race.
// A wait that needs another bound says so where it is written.
const (
	// EventuallyTimeout bounds every Eventually.
	EventuallyTimeout = 30 * time.Second
	// PollingInterval is how often Eventually and Consistently look again.
	PollingInterval = 50 * time.Millisecond
	// ConsistentlyDuration is how long "nothing happens" is watched.
	ConsistentlyDuration = 2 * time.Second
)

// RunSuite registers Gomega with Ginkgo, makes the waits above Gomega's
// defaults, so that no Eventually or Consistently has to spell them out,
// and runs the suite's specs.
func RunSuite(t *testing.T, description string) {
	t.Helper()
	gomega.RegisterFailHandler(ginkgo.Fail)
	gomega.SetDefaultEventuallyTimeout(EventuallyTimeout)
	gomega.SetDefaultEventuallyPollingInterval(PollingInterval)
	gomega.SetDefaultConsistentlyDuration(ConsistentlyDuration)
	gomega.SetDefaultConsistentlyPollingInterval(PollingInterval)
	ginkgo.RunSpecs(t, description)
}
