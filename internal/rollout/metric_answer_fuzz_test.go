package rollout

import (
	"math"
	"strings"
	"testing"
)

// FuzzPrometheusAnswer feeds answers to the parser of what a check's
// address answers, as anything listening there may: it never panics, a
// sample is exactly one of a number, no data or an error, and an error is
// bounded and does not repeat a long body.
func FuzzPrometheusAnswer(f *testing.F) {
	for _, seed := range []string{
		`{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"0.25"]}]}}`,
		`{"status":"success","data":{"resultType":"vector","result":[null]}}`,
		`{"status":"success","data":{"resultType":"scalar","result":[1,"+Inf"]}}`,
		`{"status":"success","data":{"resultType":"vector","result":[{"histogram":[1,{"count":"1"}]}]}}`,
		`{"status":"error","errorType":"bad_data","error":"parse error"}`,
		`{"status":"success","data":{"resultType":"streams","result":{}}}`, `<html>`, ``, jsonNull,
	} {
		f.Add(200, []byte(seed))
	}
	f.Add(502, []byte(`{"status":"error"}`))
	const who = "Prometheus at https://p"
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		s := ParsePrometheusAnswer(who, status, body)
		outcomes := 0
		for _, b := range []bool{s.Err != "", s.NoData, s.Err == "" && !s.NoData} {
			if b {
				outcomes++
			}
		}
		if outcomes != 1 || (s.Err != "" || s.NoData) && s.Value != 0 || math.IsNaN(s.Value) {
			t.Errorf("answer %q: sample %+v", body, s)
		}
		if len(s.Err) > len(who)+300 {
			t.Errorf("answer %q: error of %d bytes: %q", body, len(s.Err), s.Err)
		}
		if len(body) > 300 && strings.Contains(s.Err, string(body[:300])) {
			t.Errorf("the error repeats the body: %q", s.Err)
		}
	})
}
