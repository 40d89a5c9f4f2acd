package controller

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
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

// measurementResults lists every result, in the order of a check's states.
var measurementResults = []string{MeasurementPass, MeasurementOutOfBounds, MeasurementNoData, MeasurementError}

var metricMeasurements = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: MetricGateMeasurements,
	Help: "Measurements of the rollout health gate's metric checks on Prometheus, by check and result.",
}, []string{"check", "result"})

// countMeasurement counts one measurement of check. A check's series of
// every result start together, at 0, with its first measurement: a series
// that appeared at 1 would hide its first increase from increase() and
// rate(), and the measurement-error alert would miss a check whose very
// first measurement failed.
func countMeasurement(check, result string) {
	for _, r := range measurementResults {
		metricMeasurements.WithLabelValues(check, r)
	}
	metricMeasurements.WithLabelValues(check, result).Inc()
}

func init() { metrics.Registry.MustRegister(metricMeasurements) }

// The files of an entry of the credentials directory
// (docs/rollout.md#metric-gate-credentials): the keys of the Secret the
// operator mounts there.
const (
	CredentialToken = "token"
	CredentialCA    = "ca.crt"
)

// maxCredentialFile bounds what is read of a token or a CA bundle: a
// ServiceAccount token is about 1 KiB, a CA certificate 1 to 2 KiB.
const maxCredentialFile = 16 << 10

// maxMetricError bounds a measurement's error, which lands in the rollout
// record (which cuts it to 200 bytes), the status and Events.
const maxMetricError = 300

// metricQuerier runs one query of a metric check: the I/O of the metric
// gate, apart from its judgement (internal/rollout/metric_gate.go). It is
// called from several goroutines at once (metric_measurer.go).
type metricQuerier interface {
	Query(ctx context.Context, check *rollout.MetricCheck, query string) rollout.MetricSample
}

// promUserAgent names the controller to the Prometheus server it queries.
const promUserAgent = "nodeslo-controller-metric-gate"

// prometheusQuerier queries Prometheus's HTTP API (/api/v1/query, the
// query in a POST body) with a client of its own for each query: the
// credentials are read at each query, so that a rotated token or CA is
// taken up, and no connection is kept to a host the strategy may no
// longer name. It holds nothing that changes: safe for concurrent use.
type prometheusQuerier struct {
	// limits are the manager's, read and checked again at each query: the
	// directory may have changed since the strategy was checked.
	limits keyLimits
}

// Query asks Prometheus for the query's value now. Whatever goes wrong is
// the sample's Err, bounded, and never repeats what the server sent.
func (q *prometheusQuerier) Query(ctx context.Context, check *rollout.MetricCheck, query string) rollout.MetricSample {
	ctx, cancel := context.WithTimeout(ctx, metricQueryTimeout(check.Interval))
	defer cancel()
	who := "Prometheus at " + check.Address
	// Before the token is read: a credential goes only where its entry's
	// addresses say, whatever the strategy said when it was checked.
	if err := q.limits.forCredential(check.Credentials).CheckReach(
		check.Name, check.Address, check.Credentials); err != nil {
		return metricError("%s is not queried: %v", who, err)
	}
	creds, err := q.credentials(check.Credentials)
	if err != nil {
		return metricError("%s is not queried: %v", who, err)
	}
	req, err := newQueryRequest(ctx, check.Address, query, creds)
	if err != nil {
		return metricError("%s is not queried: %v", who, err)
	}
	resp, err := newPrometheusClient(check, creds).Do(req)
	if err != nil {
		// Without the method and URL net/http puts before a transport
		// error: the address is said already.
		return metricError("Prometheus unreachable at %s: %v", check.Address, unwrapAs[*url.Error](err))
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode/100 == 3 {
		return metricError("%s answered a redirect (HTTP %d), which is not followed: set address to where it leads",
			who, resp.StatusCode)
	}
	body, err := readBounded(resp.Body, rollout.MaxMetricAnswer)
	if err != nil {
		return metricError("%s: reading the answer: %v", who, err)
	}
	return rollout.ParsePrometheusAnswer(who, resp.StatusCode, body)
}

// metricError is a failed measurement's sample, its error bounded.
func metricError(format string, args ...any) rollout.MetricSample {
	return rollout.MetricSample{Err: sloconfig.Shorten(fmt.Sprintf(format, args...), maxMetricError)}
}

// unwrapAs is the error the first wrapper of type E in err's chain wraps
// (err when there is none): the callers say already what the wrapper adds.
func unwrapAs[E interface {
	error
	Unwrap() error
}](err error) error {
	if w, ok := errors.AsType[E](err); ok {
		return w.Unwrap()
	}
	return err
}

// newQueryRequest is the instant query as a POST to address's
// /api/v1/query, with the bearer token when creds has one: only to an
// https address (the strategy's validation says so too; this is the last word).
func newQueryRequest(ctx context.Context, address, query string, creds credentials) (*http.Request, error) {
	// The time to the nanosecond: whole seconds would ask for the past,
	// before a series that appeared within the current second.
	form := url.Values{"query": {query}, "time": {time.Now().UTC().Format(time.RFC3339Nano)}}
	target := strings.TrimSuffix(address, "/") + "/api/v1/query"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("User-Agent", promUserAgent)
	if creds.token != "" {
		if req.URL.Scheme != "https" {
			return nil, errors.New("a credential is sent over https only")
		}
		req.Header.Set("Authorization", "Bearer "+creds.token)
	}
	return req, nil
}

// newPrometheusClient is the client of one query: the check's TLS
// settings, no keep-alive, no proxy, no redirect followed (a redirect
// could lead the token, or the query, to an address the check may not
// reach), response headers bounded.
func newPrometheusClient(check *rollout.MetricCheck, creds credentials) *http.Client {
	transport := &http.Transport{
		DialContext: (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
		TLSClientConfig: &tls.Config{
			MinVersion: tls.VersionTLS12,
			RootCAs:    creds.roots,
			// Asked for by the check: https, and no credential with it (validated).
			InsecureSkipVerify: check.InsecureSkipVerify, //nolint:gosec // see above
		},
		TLSHandshakeTimeout:    10 * time.Second,
		DisableKeepAlives:      true,
		ForceAttemptHTTP2:      true,
		MaxResponseHeaderBytes: 64 << 10,
	}
	return &http.Client{
		Transport:     transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// credentials are what an entry of the credentials directory holds.
type credentials struct {
	token string
	// roots verify the server (nil: the system's roots).
	roots *x509.CertPool
}

// credentials reads the entry name of the credentials directory (""
// reads nothing): its token and CA bundle, each optional but not both,
// each at most maxCredentialFile bytes. name is a DNS label (validated
// with the strategy), so it names an entry, never a path elsewhere.
func (q *prometheusQuerier) credentials(name string) (credentials, error) {
	if name == "" {
		return credentials{}, nil
	}
	if q.limits.dir == "" {
		return credentials{}, fmt.Errorf("credentials %s: the manager runs without --metric-gate-credentials-dir", name)
	}
	dir := filepath.Join(q.limits.dir, name)
	if _, err := os.Stat(dir); err != nil {
		return credentials{}, fmt.Errorf("no credentials %s in the manager's --metric-gate-credentials-dir (%s)",
			name, q.limits.dir)
	}
	token, hasToken, err := readCredentialFile(dir, CredentialToken)
	if err != nil {
		return credentials{}, fmt.Errorf("credentials %s: %s: %w", name, CredentialToken, err)
	}
	ca, hasCA, err := readCredentialFile(dir, CredentialCA)
	if err != nil {
		return credentials{}, fmt.Errorf("credentials %s: %s: %w", name, CredentialCA, err)
	}
	var out credentials
	switch {
	case !hasToken && !hasCA:
		return credentials{}, fmt.Errorf("credentials %s hold neither %s nor %s", name, CredentialToken, CredentialCA)
	case hasCA:
		out.roots = x509.NewCertPool()
		if !out.roots.AppendCertsFromPEM(ca) {
			return credentials{}, fmt.Errorf("credentials %s: %s holds no PEM certificate", name, CredentialCA)
		}
	}
	out.token = strings.TrimSpace(string(token))
	if hasToken && out.token == "" {
		return credentials{}, fmt.Errorf("credentials %s: %s is empty", name, CredentialToken)
	}
	return out, nil
}

// readCredentialFile reads file of the entry dir, at most
// maxCredentialFile bytes; found is false when there is no such file. Its
// errors leave the path out: the credentials' name and file say it.
func readCredentialFile(dir, file string) (content []byte, found bool, err error) {
	f, err := os.Open(filepath.Join(dir, file))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, unwrapAs[*fs.PathError](err)
	}
	defer func() { _ = f.Close() }()
	content, err = readBounded(f, maxCredentialFile)
	if err != nil {
		return nil, false, unwrapAs[*fs.PathError](err)
	}
	return content, true, nil
}

// readBounded reads r whole, unless it holds more than limit bytes: then
// an error names the limit, having read one byte past it and no more.
func readBounded(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("larger than the limit of %s", byteSize(limit))
	}
	return b, nil
}

// byteSize renders a limit in KiB or MiB.
func byteSize(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

// metricQueryTimeout bounds one query: the check's interval, within 5 to
// 30 seconds. The query runs beside the rollout controller, which
// never waits for it; past the bound the measurement fails.
func metricQueryTimeout(interval time.Duration) time.Duration {
	return min(max(interval, 5*time.Second), 30*time.Second)
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
