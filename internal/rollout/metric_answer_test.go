package rollout

import (
	"strings"
	"testing"
)

func TestParsePrometheusAnswer(t *testing.T) {
	const who = "Prometheus at https://p"
	vector := func(samples string) string {
		return `{"status":"success","data":{"resultType":"vector","result":[` + samples + `]}}`
	}
	long := strings.Repeat("secret ", 1000)
	for _, c := range []struct {
		status int
		body   string
		want   MetricSample
	}{
		{200, vector(`{"metric":{},"value":[1,"0.25"]}`), MetricSample{Value: 0.25}},
		{200, vector(``), MetricSample{NoData: true}},
		{200, vector(`{"metric":{},"value":[1,"NaN"]}`), MetricSample{NoData: true}},
		{200, `{"status":"success","data":{"resultType":"scalar","result":[1,"3"]}}`, MetricSample{Value: 3}},
		{200, vector(`{"metric":{"a":"1"},"value":[1,"1"]},{"metric":{"a":"2"},"value":[1,"2"]}`),
			MetricSample{Err: "the query returned 2 series, not one number: aggregate them (max, sum, avg)"}},
		{200, vector(jsonNull), MetricSample{Err: who + " answered a vector that cannot be read"}},
		{200, vector(`{"metric":{},"value":[1,"` + long + `"]}`),
			MetricSample{Err: who + " answered a vector that cannot be read"}},
		{200, `{"status":"success","data":{"resultType":"matrix","result":[]}}`,
			MetricSample{Err: "the query returned a matrix, not one number"}},
		{400, `{"status":"error","errorType":"bad_data","error":"1:1: parse error"}`,
			MetricSample{Err: who + " refused the query (bad_data): 1:1: parse error"}},
		{200, `{"status":"error","errorType":"bad_data","error":"` + long + `"}`,
			MetricSample{Err: who + " refused the query (bad_data): " + long[:157] + "..."}},
		{502, `<html>` + long + `</html>`, MetricSample{Err: who + " answered HTTP 502"}},
		{200, `<html>` + long + `</html>`,
			MetricSample{Err: who + " answered HTTP 200 with 7013 bytes that are not an answer of Prometheus's HTTP API"}},
		{503, `{"status":"success","data":{"resultType":"scalar","result":[1,"3"]}}`,
			MetricSample{Err: who + " answered HTTP 503"}},
		{200, `{"status":"success"}`, MetricSample{Err: who + " answered without data"}},
		{200, vector(`{"metric":{},"histogram":[1,{"count":"1","sum":"1"}]}`),
			MetricSample{Err: "the query returned a native histogram, not one number: use histogram_quantile or the like"}},
	} {
		if got := ParsePrometheusAnswer(who, c.status, []byte(c.body)); got != c.want {
			t.Errorf("HTTP %d %s:\n got %+v\nwant %+v", c.status, clip(c.body), got, c.want)
		}
	}
}

// clip keeps a failing case's body readable.
func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}
