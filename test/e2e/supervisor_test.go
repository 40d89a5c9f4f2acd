//go:build e2e

package e2e

import (
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
)

// supervisor keeps replicas of the manager running as a Deployment's
// kubelet does: a replica that exits, killed or on its own (a leader that
// could not renew its Lease exits), is started again at once, with a new
// process and so a new leader-election identity. Without it a fault that
// ends a process would leave the spec one replica short, which is not what
// a cluster sees.
type supervisor struct {
	start func() *managerProcess

	mu       sync.Mutex
	replicas []*managerProcess
	restarts int
	stopping bool
	watching sync.WaitGroup
}

// supervise starts n replicas with start and restarts each when it exits,
// until stop.
func supervise(n int, start func() *managerProcess) *supervisor {
	GinkgoHelper()
	s := &supervisor{start: start}
	for i := range n {
		s.replicas = append(s.replicas, start())
		s.watching.Add(1)
		go s.watch(i)
	}
	return s
}

// watch restarts replica i each time it exits.
func (s *supervisor) watch(i int) {
	defer GinkgoRecover()
	defer s.watching.Done()
	for {
		s.mu.Lock()
		p := s.replicas[i]
		s.mu.Unlock()
		<-p.Exited()
		s.mu.Lock()
		if s.stopping {
			s.mu.Unlock()
			return
		}
		s.replicas[i] = s.start()
		s.restarts++
		s.mu.Unlock()
	}
}

// running returns the replicas' current processes.
func (s *supervisor) running() []*managerProcess {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*managerProcess(nil), s.replicas...)
}

// restarted counts the restarts so far.
func (s *supervisor) restarted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.restarts
}

// stop ends supervision, then stops every replica gracefully.
func (s *supervisor) stop() {
	s.mu.Lock()
	s.stopping = true
	replicas := append([]*managerProcess(nil), s.replicas...)
	s.mu.Unlock()
	for _, p := range replicas {
		p.Stop(15 * time.Second)
	}
	s.watching.Wait()
}
