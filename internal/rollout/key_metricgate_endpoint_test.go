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

func TestMetricCheckEndpointErrors(t *testing.T) {
	const p = "healthGate.metrics[0]."
	within := &Limits{AllowedHosts: []string{promHost, "thanos.monitoring:10902"}}
	for _, c := range []struct {
		fields string
		limits *Limits // nil: LoadKey
		want   string
	}{
		{`"address": "http://p:9090", "bearerTokenFile": "/var/run/secrets/kubernetes.io/serviceaccount/token"`, nil,
			p + `bearerTokenFile: Forbidden: a ConfigMap names no file: put the token, as the file "token", ` +
				`in an entry of the manager's --metric-gate-credentials-dir and name the entry with credentials`},
		{`"address": "https://p:9090", "caFile": "/etc/ssl/ca.crt"`, nil,
			p + `caFile: Forbidden: a ConfigMap names no file: put the CA bundle, as the file "ca.crt"`},
		{`"address": "https://p:9090", "bearerTokenFile": "/dev/zero"`, nil, p + "bearerTokenFile: Forbidden"},
		{`"address": "https://p:9090", "credentials": "../serviceaccount"`, nil,
			p + `credentials: Invalid value: "../serviceaccount": a lowercase RFC 1123 label`},
		{`"address": "https://p:9090", "credentials": "prom/token"`, nil,
			"the name of an entry of the manager's --metric-gate-credentials-dir, never a path"},
		{`"address": "https://p:9090", "credentials": "prom.a"`, nil, p + `credentials: Invalid value: "prom.a"`},
		{`"address": "http://p:9090", "credentials": "prom"`, nil,
			p + `address: Invalid value: "http://p:9090": must be https when credentials is set: ` +
				`a credential never travels in clear text`},
		{`"address": "HTTP://p:9090", "credentials": "prom"`, nil, "must be https when credentials is set"},
		{`"address": "https://p:9090", "credentials": "prom", "insecureSkipVerify": true`, nil,
			p + "insecureSkipVerify: Invalid value: true: must not be set with credentials"},
		{`"address": "http://p:9090", "insecureSkipVerify": true`, nil,
			p + `address: Invalid value: "http://p:9090": must be https when insecureSkipVerify is set`},
		{`"address": "https://p:9090/` + strings.Repeat("x", 1024) + `"`, nil,
			p + "address: Too long: may not be more than 1024 bytes"},
		{`"address": "http://u:pw@p:9090"`, nil, "must have no query, fragment or user: use credentials"},
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
