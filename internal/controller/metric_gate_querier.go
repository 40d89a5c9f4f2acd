package controller

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/client_golang/prometheus"
	promconfig "github.com/prometheus/common/config"
	"github.com/prometheus/common/model"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// MetricGateMeasurements counts the health gate's metric measurements by
// check and result: a test, or an operator, sees from it that the gate
// measured, whatever the record kept.
const MetricGateMeasurements = "nodeslo_rollout_metric_measurements_total"

// Results of a metric measurement (label "result").
const (
	MeasurementPass        = "pass"
	MeasurementOutOfBounds = "out_of_bounds"
	MeasurementNoData      = "no_data"
	MeasurementError       = "error"
)

var metricMeasurements = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: MetricGateMeasurements,
	Help: "Measurements of the rollout health gate's metric checks on Prometheus, by check and result.",
}, []string{"check", "result"})

func init() { metrics.Registry.MustRegister(metricMeasurements) }

// metricQuerier runs one query of a metric check: the I/O of the metric
// gate, apart from its judgement (internal/rollout/metric_gate.go).
type metricQuerier interface {
	Query(ctx context.Context, check *rollout.MetricCheck, query string) rollout.MetricSample
	// KeepOnly forgets what it keeps for endpoints no check uses any more.
	KeepOnly(checks []rollout.MetricCheck)
}

// promUserAgent names the controller to the Prometheus server it queries.
const promUserAgent = "nodeslo-controller-metric-gate"

// prometheusQuerier queries Prometheus's HTTP API, with one client per
// endpoint (address, credentials, CA); prometheus/common reads the token
// and CA files at each request, so that a rotated token is taken up.
// Only the config-cache controller's one worker calls it: no lock.
type prometheusQuerier struct {
	clients map[endpoint]promv1.API
}

// endpoint is how a check reaches its Prometheus.
type endpoint struct {
	address, tokenFile, caFile string
	insecure                   bool
}

func endpointOf(c *rollout.MetricCheck) endpoint {
	return endpoint{c.Address, c.BearerTokenFile, c.CAFile, c.InsecureSkipVerify}
}

// Query asks Prometheus for the query's value now. An error, a refused
// query or an answer that is not one number is the sample's Err, saying so.
func (q *prometheusQuerier) Query(ctx context.Context, check *rollout.MetricCheck, query string) rollout.MetricSample {
	client, err := q.client(endpointOf(check))
	if err != nil {
		return rollout.MetricSample{Err: fmt.Sprintf("cannot make a client for Prometheus at %s: %v", check.Address, err)}
	}
	ctx, cancel := context.WithTimeout(ctx, metricQueryTimeout(check.Interval))
	defer cancel()
	value, _, err := client.Query(ctx, query, time.Now())
	var refused *promv1.Error
	switch {
	case errors.As(err, &refused):
		return rollout.MetricSample{Err: fmt.Sprintf("Prometheus at %s refused the query (%s): %s",
			check.Address, refused.Type, refused.Msg)}
	case err != nil:
		return rollout.MetricSample{Err: fmt.Sprintf("Prometheus unreachable at %s: %v", check.Address, err)}
	}
	return sampleOf(value)
}

// client returns the client of an endpoint, made at its first use.
func (q *prometheusQuerier) client(e endpoint) (promv1.API, error) {
	if c, ok := q.clients[e]; ok {
		return c, nil
	}
	cfg := promconfig.HTTPClientConfig{
		TLSConfig:       promconfig.TLSConfig{CAFile: e.caFile, InsecureSkipVerify: e.insecure},
		FollowRedirects: true,
		EnableHTTP2:     true,
	}
	if e.tokenFile != "" {
		cfg.Authorization = &promconfig.Authorization{Type: "Bearer", CredentialsFile: e.tokenFile}
	}
	httpClient, err := promconfig.NewClientFromConfig(cfg, promUserAgent,
		promconfig.WithUserAgent(promUserAgent))
	if err != nil {
		return nil, err
	}
	apiClient, err := api.NewClient(api.Config{Address: e.address, Client: httpClient})
	if err != nil {
		return nil, err
	}
	if q.clients == nil {
		q.clients = map[endpoint]promv1.API{}
	}
	q.clients[e] = promv1.NewAPI(apiClient)
	return q.clients[e], nil
}

// KeepOnly drops the clients of endpoints no check of checks uses.
func (q *prometheusQuerier) KeepOnly(checks []rollout.MetricCheck) {
	used := map[endpoint]bool{}
	for i := range checks {
		used[endpointOf(&checks[i])] = true
	}
	for e := range q.clients {
		if !used[e] {
			delete(q.clients, e)
		}
	}
}

// metricQueryTimeout bounds one query: the check's interval, within 5 to
// 30 seconds, since the config-cache controller's worker waits for it.
func metricQueryTimeout(interval time.Duration) time.Duration {
	return min(max(interval, 5*time.Second), 30*time.Second)
}

// sampleOf reads Prometheus's answer: one number, or no data, or an
// answer the check cannot judge.
func sampleOf(v model.Value) rollout.MetricSample {
	switch v := v.(type) {
	case *model.Scalar:
		return number(float64(v.Value))
	case model.Vector:
		switch len(v) {
		case 0:
			return rollout.MetricSample{NoData: true}
		case 1:
			return number(float64(v[0].Value))
		}
		return rollout.MetricSample{Err: fmt.Sprintf(
			"the query returned %d series, not one number: aggregate them (max, sum, avg)", len(v))}
	case nil:
		return rollout.MetricSample{NoData: true}
	}
	return rollout.MetricSample{Err: fmt.Sprintf("the query returned a %s, not one number", v.Type())}
}

// number is a sample of one value; NaN (0/0, say) is no data.
func number(v float64) rollout.MetricSample {
	if math.IsNaN(v) {
		return rollout.MetricSample{NoData: true}
	}
	return rollout.MetricSample{Value: v}
}

// measureMetrics runs the queries due of plan input in and adds their
// samples to it, counting each measurement.
func measureMetrics(ctx context.Context, q metricQuerier, queries []rollout.MetricQuery, in *rollout.PlanInput) {
	q.KeepOnly(in.Rollout.Policy.HealthGate.Metrics)
	if len(queries) == 0 {
		return
	}
	in.MetricSamples = make(map[string]rollout.MetricSample, len(queries))
	for _, mq := range queries {
		s := q.Query(ctx, mq.Check, mq.Query)
		in.MetricSamples[mq.Check.Name] = s
		metricMeasurements.WithLabelValues(mq.Check.Name, measurementResult(mq.Check, s)).Inc()
	}
}

// measurementResult is the "result" label of a sample.
func measurementResult(c *rollout.MetricCheck, s rollout.MetricSample) string {
	switch {
	case s.Err != "":
		return MeasurementError
	case s.NoData:
		return MeasurementNoData
	case c.Pass(s.Value):
		return MeasurementPass
	}
	return MeasurementOutOfBounds
}
