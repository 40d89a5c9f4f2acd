package manager

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
)

// fenceServer is an apiserver stand-in: it answers a Lease write with the
// Lease whose holder the request's holder query names, and counts every
// other request it was sent, by method.
type fenceServer struct {
	*httptest.Server
	mu   sync.Mutex
	seen map[string]int
	// hold delays the answers to writes that are not a Lease's.
	hold time.Duration
}

func newFenceServer(t *testing.T) *fenceServer {
	t.Helper()
	s := &fenceServer{seen: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/apis/coordination.k8s.io/") {
			leaseAnswer(t, w, r.URL.Query().Get("lease"), r.URL.Query().Get("holder"), r.URL.Query().Has("json"))
			return
		}
		s.mu.Lock()
		s.seen[r.Method]++
		hold := s.hold
		s.mu.Unlock()
		select {
		case <-time.After(hold):
		case <-r.Context().Done():
		}
		_, _ = io.WriteString(w, "{}")
	}))
	t.Cleanup(s.Close)
	return s
}

// leaseAnswer writes the Lease ns/name held by holder as kube-apiserver
// answers client-go: in protobuf, or in JSON when asked.
func leaseAnswer(t *testing.T, w http.ResponseWriter, name, holder string, asJSON bool) {
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder}}
	mediaType := runtime.ContentTypeProtobuf
	if asJSON {
		mediaType = runtime.ContentTypeJSON
	}
	info, _ := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), mediaType)
	body, err := runtime.Encode(scheme.Codecs.EncoderForVersion(info.Serializer, coordinationv1.SchemeGroupVersion), lease)
	if err != nil {
		t.Errorf("encoding the Lease: %v", err)
	}
	w.Header().Set("Content-Type", mediaType)
	_, _ = w.Write(body)
}

func (s *fenceServer) count(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[method]
}

// fencedClient sends through a fence on the Lease ns/leader, with a clock
// the test moves.
type fencedClient struct {
	t      *testing.T
	server *fenceServer
	fence  *leaseFence
	http   *http.Client
	clock  time.Time
}

func newFencedClient(t *testing.T) *fencedClient {
	t.Helper()
	c := &fencedClient{t: t, server: newFenceServer(t), clock: time.Unix(1_000_000, 0)}
	c.fence = newLeaseFence("ns", "leader", LeaderElectionTimings{
		LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second})
	c.fence.now = func() time.Time { return c.clock }
	c.http = &http.Client{Transport: c.fence.wrap(http.DefaultTransport)}
	return c
}

func (c *fencedClient) send(method, path string) error {
	c.t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, c.server.URL+path, strings.NewReader("{}"))
	if err != nil {
		c.t.Fatal(err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

// renew writes the Lease of the given name as held by holder ("": a
// release), answered in protobuf.
func (c *fencedClient) renew(lease, holder string) {
	c.t.Helper()
	c.renewAnswered(lease, holder, "")
}

// renewAnswered is renew with more of the query (json: a JSON answer).
func (c *fencedClient) renewAnswered(lease, holder, query string) {
	c.t.Helper()
	path := "/apis/coordination.k8s.io/v1/namespaces/ns/leases/" + lease + "?lease=" + lease + "&holder=" + holder + query
	if err := c.send(http.MethodPut, path); err != nil {
		c.t.Fatalf("the Lease write must always pass the fence: %v", err)
	}
}

const nodeSLOPath = "/apis/slo.koordinator.sh/v1alpha1/nodeslos/node-1"

func (c *fencedClient) mustRefuse(why string) {
	c.t.Helper()
	before := c.server.count(http.MethodPut)
	if err := c.send(http.MethodPut, nodeSLOPath); !errors.Is(err, errNotLeading) {
		c.t.Fatalf("%s: a NodeSLO write returned %v, want it refused (errNotLeading)", why, err)
	}
	if after := c.server.count(http.MethodPut); after != before {
		c.t.Fatalf("%s: the refused write reached the apiserver", why)
	}
}

func (c *fencedClient) mustPass(why string) {
	c.t.Helper()
	before := c.server.count(http.MethodPut)
	if err := c.send(http.MethodPut, nodeSLOPath); err != nil {
		c.t.Fatalf("%s: a NodeSLO write failed: %v", why, err)
	}
	if after := c.server.count(http.MethodPut); after != before+1 {
		c.t.Fatalf("%s: the write did not reach the apiserver", why)
	}
}

// A replica writes only from its renewal of the Lease until the renew
// deadline after the last one; a release, or another Lease's write, does
// not open it (docs/behaviour.md#faults).
func TestLeaseFenceLetsWritesThroughOnlyWhileTheLeaseIsFresh(t *testing.T) {
	c := newFencedClient(t)
	c.mustRefuse("before the Lease was acquired")
	if err := c.send(http.MethodGet, nodeSLOPath); err != nil {
		t.Fatalf("a read must pass the fence at any time: %v", err)
	}
	c.renew("another-lease", "me")
	c.mustRefuse("after a write of another Lease")

	c.renew("leader", "me")
	c.mustPass("just after the Lease was acquired")
	c.clock = c.clock.Add(9 * time.Second)
	c.mustPass("9 s after the renewal, within the 10 s renew deadline")
	c.clock = c.clock.Add(time.Second)
	c.mustRefuse("10 s after the renewal: the leader stalled past its renew deadline")
	for _, method := range []string{http.MethodPost, http.MethodPatch, http.MethodDelete} {
		if err := c.send(method, nodeSLOPath); !errors.Is(err, errNotLeading) {
			t.Fatalf("a %s past the renew deadline returned %v, want it refused", method, err)
		}
	}

	c.renew("leader", "me")
	c.mustPass("after the next renewal")
	c.renew("leader", "")
	c.mustRefuse("after the Lease was released")
	c.renewAnswered("leader", "me", "&json")
	c.mustPass("after a renewal answered in JSON")
}

// What stores nothing passes a closed fence: a dry run (the CRD probe) and
// the metrics endpoint's token and access reviews, which every replica makes.
func TestLeaseFenceLetsWhatStoresNothingThrough(t *testing.T) {
	c := newFencedClient(t)
	for _, path := range []string{
		nodeSLOPath + "?dryRun=All",
		"/apis/authentication.k8s.io/v1/tokenreviews",
		"/apis/authorization.k8s.io/v1/subjectaccessreviews",
	} {
		if err := c.send(http.MethodPost, path); err != nil {
			t.Errorf("POST %s with the fence closed: %v, want it sent", path, err)
		}
	}
	if got := c.server.count(http.MethodPost); got != 3 {
		t.Fatalf("the apiserver got %d of the 3 writes that store nothing", got)
	}
}

// A write let through is cancelled at the end of the lease duration after
// the renewal it was sent under: it cannot land after another replica may
// have taken over.
func TestLeaseFenceCancelsAWriteStillInFlightWhenTheLeaseRunsOut(t *testing.T) {
	c := newFencedClient(t)
	c.fence.now = time.Now
	c.renew("leader", "me")
	c.fence.lease = 300 * time.Millisecond // the deadline is the renewal's start plus the lease duration
	c.server.mu.Lock()
	c.server.hold = 2 * time.Second
	c.server.mu.Unlock()
	// The server holds it 2 s and the transport has no timeout: only the
	// fence's deadline ends it sooner.
	if err := c.send(http.MethodPut, nodeSLOPath); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a write held past the lease returned %v, want context.DeadlineExceeded", err)
	}
}
