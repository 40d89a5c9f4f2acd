package controller

import (
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// blockingQuerier answers "no data" once release is closed, or when its
// context ends; it sends on begun as each query begins.
type blockingQuerier struct {
	release chan struct{}
	begun   chan struct{}
}

func (q *blockingQuerier) Query(ctx context.Context, _ *rollout.MetricCheck, _ string) rollout.MetricSample {
	q.begun <- struct{}{}
	select {
	case <-q.release:
		return rollout.MetricSample{NoData: true}
	case <-ctx.Done():
		return rollout.MetricSample{Err: ctx.Err().Error()}
	}
}

// startedMeasurer runs a measurer as the manager would, until the test ends.
func startedMeasurer(t *testing.T, q metricQuerier) (*metricMeasurer, chan event.GenericEvent) {
	t.Helper()
	done := make(chan event.GenericEvent, 1)
	m := newMetricMeasurer(q, done)
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error)
	go func() { stopped <- m.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-stopped; err != nil {
			t.Error(err)
		}
	})
	<-m.started
	return m, done
}

func TestMeasurerRunsBesideAndDropsAnotherRolloutsSamples(t *testing.T) {
	q := &blockingQuerier{release: make(chan struct{}), begun: make(chan struct{}, 3)}
	m, done := startedMeasurer(t, q)
	check := &rollout.MetricCheck{Name: "a", Interval: time.Second}
	queries := []rollout.MetricQuery{{Check: check, Query: "up"}}

	m.start("one", queries)
	m.start("one", queries) // still running: not begun twice
	if s := m.take("one"); s != nil {
		t.Fatalf("samples before the query ended: %v", s)
	}
	// Another rollout cancels the query of the first: no sample, no wake-up.
	m.start("two", queries)
	for i := range 2 {
		select {
		case <-q.begun:
		case <-time.After(10 * time.Second):
			t.Fatalf("%d queries begun, want 2 (one a rollout)", i)
		}
	}
	select {
	case <-q.begun:
		t.Fatal("a third query begun: the first rollout's was begun twice")
	default:
	}
	close(q.release)
	<-done
	got := m.take("two")
	if len(got) != 1 || !got["a"].NoData {
		t.Errorf("samples %v, want the one of the second rollout", got)
	}
	if s := m.take("two"); s != nil {
		t.Errorf("a sample taken twice: %v", s)
	}
}

// A check's first measurement brings the series of every result, at 0 but
// its own: an error at the first measurement is an increase from 0.
func TestAChecksFirstMeasurementStartsEveryResultsSeries(t *testing.T) {
	const check = "first-measurement-starts-every-result"
	countMeasurement(check, MeasurementError)
	// Read without WithLabelValues, which would make a missing series.
	registry := prometheus.NewPedanticRegistry()
	registry.MustRegister(metricMeasurements)
	families, err := registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["check"] == check {
				got[labels["result"]] = m.GetCounter().GetValue()
			}
		}
	}
	want := map[string]float64{MeasurementPass: 0, MeasurementOutOfBounds: 0, MeasurementNoData: 0, MeasurementError: 1}
	if !maps.Equal(got, want) {
		t.Errorf("%s{check=%q} by result: %v, want %v", MetricGateMeasurements, check, got, want)
	}
}

func TestQuerierRefusesAHostNotAllowedAndBoundsWhatItReads(t *testing.T) {
	var asked atomic.Int32
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		asked.Add(1)
		_, _ = w.Write([]byte(strings.Repeat(" ", rollout.MaxMetricAnswer+1)))
	}))
	t.Cleanup(server.Close)
	// The longest interval gives the query its longest deadline (30 s): the
	// answer read must end on its size, never on a loaded machine's clock.
	check := &rollout.MetricCheck{Name: "a", Address: server.URL, Interval: time.Hour}

	refusing := &prometheusQuerier{limits: keyLimits{hosts: []string{"prometheus.monitoring"}}}
	s := refusing.Query(t.Context(), check, "up")
	if !strings.Contains(s.Err, "is not queried: host 127.0.0.1:") || asked.Load() != 0 {
		t.Errorf("outside the allowed hosts: %q, %d requests", s.Err, asked.Load())
	}
	s = (&prometheusQuerier{limits: keyLimits{hosts: []string{"127.0.0.1"}}}).Query(t.Context(), check, "up")
	if !strings.HasSuffix(s.Err, "reading the answer: larger than the limit of 4 MiB") {
		t.Errorf("an answer one byte too large: %q", s.Err)
	}
	if _, err := newQueryRequest(t.Context(), server.URL, "up", credentials{token: "t"}); err == nil {
		t.Error("a request with a token to an http address was made")
	}
}
