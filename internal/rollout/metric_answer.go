package rollout

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/prometheus/common/model"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Prometheus's answer to an instant query (its HTTP API's /api/v1/query),
// read into a MetricSample without I/O: what Prometheus, or whatever
// answers at a check's address, says reaches the rollout record through
// this one function, fuzzed (FuzzPrometheusAnswer). What it says of an
// answer is bounded and never repeats the answer's body: its errors land
// in the rollout record, the status and Events.

// MaxMetricAnswer bounds what a measurement reads of an answer: a query
// returning one number answers in well under a KiB, and 4 MiB holds the
// thousands of series of a query that forgot to aggregate.
const MaxMetricAnswer = 4 << 20

// maxPrometheusMessage bounds what a sample repeats of Prometheus's own
// error text (a PromQL parse error fits).
const maxPrometheusMessage = 160

// promAnswer is the envelope of every answer of Prometheus's HTTP API.
type promAnswer struct {
	Status    string    `json:"status"`
	Data      *promData `json:"data"`
	ErrorType string    `json:"errorType"`
	Error     string    `json:"error"`
}

// promData is the data of an instant query's answer.
type promData struct {
	ResultType string          `json:"resultType"`
	Result     json.RawMessage `json:"result"`
}

// ParsePrometheusAnswer reads the answer to an instant query: one number,
// no data, or an error saying why the check cannot judge it. who names the
// server in errors ("Prometheus at https://..."), status is the HTTP
// status code and body the answer, at most MaxMetricAnswer bytes.
func ParsePrometheusAnswer(who string, status int, body []byte) MetricSample {
	var a promAnswer
	if err := json.Unmarshal(body, &a); err != nil || (a.Status != "success" && a.Status != "error") {
		if status/100 != 2 {
			return failed("%s answered HTTP %d", who, status)
		}
		return failed("%s answered HTTP %d with %d bytes that are not an answer of Prometheus's HTTP API",
			who, status, len(body))
	}
	switch {
	case a.Status == "error":
		return failed("%s refused the query (%s): %s", who,
			sloconfig.Shorten(a.ErrorType, 40), sloconfig.Shorten(a.Error, maxPrometheusMessage))
	case status/100 != 2:
		return failed("%s answered HTTP %d", who, status)
	case a.Data == nil:
		return failed("%s answered without data", who)
	}
	switch a.Data.ResultType {
	case model.ValScalar.String():
		var s model.Scalar
		if json.Unmarshal(a.Data.Result, &s) != nil {
			return failed("%s answered a scalar that is not a number", who)
		}
		return number(float64(s.Value))
	case model.ValVector.String():
		var v model.Vector
		if json.Unmarshal(a.Data.Result, &v) != nil {
			return failed("%s answered a vector that cannot be read", who)
		}
		switch {
		case len(v) == 0:
			return MetricSample{NoData: true}
		case len(v) > 1:
			return failed("the query returned %d series, not one number: aggregate them (max, sum, avg)", len(v))
		case v[0] == nil:
			return failed("%s answered a vector that cannot be read", who)
		case v[0].Histogram != nil:
			return failed("the query returned a native histogram, not one number: use histogram_quantile or the like")
		}
		return number(float64(v[0].Value))
	}
	return failed("the query returned a %s, not one number", sloconfig.Shorten(a.Data.ResultType, 20))
}

// failed is a sample whose measurement failed for the reason given.
func failed(format string, args ...any) MetricSample {
	return MetricSample{Err: fmt.Sprintf(format, args...)}
}

// number is a sample of one value; NaN (0/0, say) is no data.
func number(v float64) MetricSample {
	if math.IsNaN(v) {
		return MetricSample{NoData: true}
	}
	return MetricSample{Value: v}
}
