package rollout

import (
	"strings"
	"testing"
)

// promHost is an allowed host of the tests.
const promHost = "prometheus.monitoring"

// endpointCheck is a metric check reaching Prometheus as fields say.
func endpointCheck(fields string) map[string]string {
	return metricKey(`{"name": "a", "query": "up", "max": 1, ` + fields + `}`)
}

// What the CRD's schema checks of an endpoint (the URL's shape, https
// with credentials, the credentials' name) is test/crd/strategy_test.go's;
// these are the manager's limits, and the rule a credential must never
// break whatever the installed CRD says.
func TestMetricCheckEndpointErrors(t *testing.T) {
	const p = "healthGate.metrics[0]."
	within := &Limits{AllowedHosts: []string{promHost, "thanos.monitoring:10902"}}
	withProm := &Limits{CredentialsDir: credsDir, Credentials: map[string]CredentialEntry{
		"prom": entryOf(t, "https://p:9090")}}
	for _, c := range []struct {
		fields string
		limits *Limits // nil: LoadKey
		want   string
	}{
		{`"address": "http://p:9090", "credentials": "prom"`, withProm,
			p + `address: Invalid value: "http://p:9090": must be https when credentials is set: ` +
				`a credential never travels in clear text`},
		{`"address": "HTTP://p:9090", "credentials": "prom"`, withProm, "must be https when credentials is set"},
		{`"address": "https://p:9090", "credentials": "prom", "insecureSkipVerify": true`, nil,
			p + "insecureSkipVerify: Invalid value: true: must not be set with credentials"},
		{`"address": "http://evil.example:9090"`, within,
			p + `address: Invalid value: "http://evil.example:9090": host evil.example:9090 is not among ` +
				`the manager's --metric-gate-allowed-hosts (prometheus.monitoring,thanos.monitoring:10902)`},
		{`"address": "http://thanos.monitoring:9090"`, within, "host thanos.monitoring:9090 is not among"},
		{`"address": "https://p:9090", "credentials": "prom"`, &Limits{},
			p + `credentials: Invalid value: "prom": the manager runs without --metric-gate-credentials-dir`},
	} {
		var load Key
		if c.limits == nil {
			load = LoadKey(endpointCheck(c.fields))
		} else {
			load = LoadKeyWithin(endpointCheck(c.fields), *c.limits)
		}
		msgs := strings.Join(load.Messages(), "\n")
		if load.Valid() || !strings.Contains(msgs, c.want) {
			t.Errorf("%s:\nerrors %s\nwant one containing %s", c.fields, msgs, c.want)
		}
	}
}

func TestMetricCheckEndpointsAccepted(t *testing.T) {
	limits := Limits{AllowedHosts: []string{promHost, "thanos.monitoring:443", "[::1]:9090", "127.0.0.1"},
		CredentialsDir: credsDir, Credentials: map[string]CredentialEntry{
			"prometheus-a": entryOf(t, "https://prometheus.monitoring:9090"),
			"thanos":       entryOf(t, "https://thanos.monitoring"),
		}}
	for _, fields := range []string{
		`"address": "https://prometheus.monitoring:9090", "credentials": "prometheus-a"`,
		`"address": "https://Prometheus.Monitoring./prefix/"`,
		`"address": "https://thanos.monitoring", "credentials": "thanos"`,
		`"address": "https://thanos.monitoring:443"`,
		`"address": "http://[::1]:9090"`,
		`"address": "https://127.0.0.1:9443", "insecureSkipVerify": true`,
	} {
		load := LoadKeyWithin(endpointCheck(fields), limits)
		if !load.Valid() {
			t.Errorf("%s: %v", fields, load.Messages())
		}
	}
	load := LoadKey(endpointCheck(`"address": "https://p:9090", "credentials": "prom"`))
	if !load.Valid() || load.Policy.HealthGate.Metrics[0].Credentials != "prom" {
		t.Errorf("without the manager's limits: %v", load.Messages())
	}
}

func TestParseAllowedHosts(t *testing.T) {
	got, err := ParseAllowedHosts(" Prometheus.Monitoring , thanos.monitoring:10902,,[::1]:9090, 10.0.0.1,")
	want := []string{promHost, "thanos.monitoring:10902", "[::1]:9090", "10.0.0.1"}
	if err != nil || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	if got, err := ParseAllowedHosts(""); err != nil || got != nil {
		t.Errorf("empty: %q, %v", got, err)
	}
	for _, bad := range []string{"http://p:9090", "p/x", "p:0", "p:99999", "u@p", ":9090", "p:x"} {
		if _, err := ParseAllowedHosts(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
