package rollout

import (
	"strings"
	"testing"
)

// The credentials directory of the tests, its entries and the addresses
// they list.
const (
	credsDir     = "/creds"
	promEntry    = "prom"
	bareEntry    = "bare"
	promListed   = "https://prometheus.monitoring:9091"
	thanosPrefix = "https://thanos.monitoring/prometheus"
	promDefault  = "https://prometheus.monitoring"
	noUserEtc    = "must have no user, query or fragment"
	noFile       = "does not exist"
)

// entryOf is an entry of the credentials directory whose addresses file
// holds lines.
func entryOf(t *testing.T, lines ...string) CredentialEntry {
	t.Helper()
	addresses, err := ParseCredentialAddresses(strings.Join(lines, "\n"))
	if err != nil {
		t.Fatalf("%q: %v", lines, err)
	}
	return CredentialEntry{Addresses: addresses}
}

func TestParseCredentialAddresses(t *testing.T) {
	got, err := ParseCredentialAddresses("# the monitoring stack\n\n  https://Prometheus.Monitoring.:9091  \r\n" +
		"https://thanos.monitoring/prometheus/\nhttps://[::1]:443\n")
	if err != nil {
		t.Fatal(err)
	}
	shown := make([]string, 0, len(got))
	for _, a := range got {
		shown = append(shown, a.String())
	}
	want := "https://prometheus.monitoring:9091 https://thanos.monitoring/prometheus https://[::1]"
	if strings.Join(shown, " ") != want {
		t.Errorf("got %q, want %s", shown, want)
	}
	for _, c := range []struct{ text, want string }{
		{"", "lists no address"},
		{"# only a comment\n\n", "lists no address"},
		{"https://p\nhttp://p:9090", `line 2: "http://p:9090": must be https: a credential never travels in clear text`},
		{"prometheus.monitoring:9091", `line 1: "prometheus.monitoring:9091": must be an https URL with a host`},
		{"https://", "must be an https URL with a host"},
		{"https://:9091", "must be an https URL with a host"},
		{"https://u:pw@p", noUserEtc},
		{"https://p/?x=1", noUserEtc},
		{"https://p/?", noUserEtc},
		{"https://p/#x", noUserEtc},
		{"https://p/prom/../admin", `its path must hold no "." or ".." segment`},
		{"https://p:0", "the port must be 1 to 65535"},
		{"https://p:99999", "the port must be 1 to 65535"},
	} {
		if _, err := ParseCredentialAddresses(c.text); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error containing %s", c.text, err, c.want)
		}
	}
}

// The matching rule (docs/rollout.md#metric-gate-credentials): scheme,
// host and port exact (443 when absent, the host's case and trailing dot
// ignored), and the listed path a prefix of whole segments.
func TestCredentialAddressesCoverExactlyTheirHostPortAndPathPrefix(t *testing.T) {
	for _, c := range []struct {
		line, address string
		covered       bool
	}{
		{promListed, promListed, true},
		{promListed, "https://PROMETHEUS.monitoring.:9091/", true},
		{promListed, "https://prometheus.monitoring:9091/any/prefix", true},
		{promListed, "https://prometheus.monitoring:9092", false},
		{promListed, promDefault, false},
		{promListed, "https://prometheus.monitoring.evil.example:9091", false},
		{promListed, "https://evil.example:9091", false},
		{promDefault, "https://prometheus.monitoring:443", true},
		{"https://prometheus.monitoring:443", promDefault, true},
		{promDefault, "https://prometheus.monitoring:8443", false},
		{"https://prometheus.monitoring/", "https://prometheus.monitoring/x", true},
		{thanosPrefix, thanosPrefix, true},
		{thanosPrefix, "https://thanos.monitoring/prometheus/", true},
		{thanosPrefix, "https://thanos.monitoring/prometheus/tenant-a", true},
		{thanosPrefix, "https://thanos.monitoring/prometheus2", false},
		{thanosPrefix, "https://thanos.monitoring/", false},
		{thanosPrefix, "https://thanos.monitoring/admin", false},
		{thanosPrefix, "https://thanos.monitoring/prometheus/../admin", false},
		{thanosPrefix, "https://thanos.monitoring/prometheus/%2e%2e/admin", false},
		{thanosPrefix, "https://thanos.monitoring/prometheus%2Fx", false},
		{thanosPrefix, "https://thanos.monitoring/Prometheus", false},
		{"https://127.0.0.1:9091", "https://localhost:9091", false},
		{"https://[::1]:9091", "https://[::1]:9091", true},
		{promDefault, "http://prometheus.monitoring:443", false},
	} {
		limits := Limits{CredentialsDir: credsDir,
			Credentials: map[string]CredentialEntry{promEntry: entryOf(t, c.line)}}
		err := limits.CheckReach("a", c.address, promEntry)
		if (err == nil) != c.covered {
			t.Errorf("%s covering %s: %v, want covered %v", c.line, c.address, err, c.covered)
		}
	}
}

func TestCheckReachSaysWhatToEdit(t *testing.T) {
	limits := Limits{CredentialsDir: "/etc/nodeslo/metric-gate-credentials",
		Credentials: map[string]CredentialEntry{
			promEntry: entryOf(t, promListed),
			bareEntry: {Problem: noFile},
		}}
	for _, c := range []struct{ address, credentials, want string }{
		{"https://evil.example", promEntry, "check a may not send credentials prom there: it is not among the addresses of " +
			"/etc/nodeslo/metric-gate-credentials/prom/addresses (https://prometheus.monitoring:9091); " +
			"add it there (the key addresses of the entry's Secret) or name other credentials"},
		{promListed, bareEntry, "credentials bare cannot be used by any check (check a names them): " +
			"/etc/nodeslo/metric-gate-credentials/bare/addresses: does not exist; it lists the https addresses " +
			"the credential may be sent to, one a line (the key addresses of its Secret)"},
		{promListed, "other", "check a names credentials other, which the manager's " +
			"--metric-gate-credentials-dir (/etc/nodeslo/metric-gate-credentials) has no entry for: mount a Secret " +
			"there as /etc/nodeslo/metric-gate-credentials/other, with token, ca.crt or both, and addresses " +
			"listing where it may be sent"},
		{"http://prometheus.monitoring:9091", promEntry, "must be https when credentials is set"},
		{"https://prometheus.monitoring:9091/x/..", promEntry, `its path holds a "." or ".." segment`},
		{promListed, "", "check a names no credentials, and the manager runs without " +
			"--metric-gate-allowed-hosts, so it may reach no address: list the Prometheus hosts there " +
			"(Helm: metricGate.allowedHosts), or name credentials whose addresses file lists this address"},
	} {
		if err := limits.CheckReach("a", c.address, c.credentials); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s with %q: %v\nwant %s", c.address, c.credentials, err, c.want)
		}
	}
	if err := (Limits{}).CheckReach("a", "https://p", promEntry); err == nil ||
		!strings.Contains(err.Error(), "the manager runs without --metric-gate-credentials-dir") {
		t.Errorf("without a credentials directory: %v", err)
	}
	within := Limits{AllowedHosts: []string{promHost}}
	if err := within.CheckReach("a", "http://prometheus.monitoring:9090", ""); err != nil {
		t.Errorf("an allowed host without credentials: %v", err)
	}
	if err := within.CheckReach("a", "https://evil.example", ""); err == nil ||
		!strings.Contains(err.Error(), "host evil.example:443 is not among the manager's --metric-gate-allowed-hosts") {
		t.Errorf("a host not allowed: %v", err)
	}
}

// The strategy as the controller and the webhook load it: each refusal at
// the field it is about, the strategy invalid.
func TestMetricCheckReachErrorsInTheKey(t *testing.T) {
	const p = "healthGate.metrics[0]."
	limits := Limits{AllowedHosts: []string{promHost}, CredentialsDir: credsDir,
		Credentials: map[string]CredentialEntry{
			promEntry: entryOf(t, promListed),
			bareEntry: {Problem: noFile},
		}}
	for _, c := range []struct {
		fields string
		limits Limits
		want   string
	}{
		{`"address": "https://thanos.monitoring:9091", "credentials": "prom"`, limits,
			p + `address: Invalid value: "https://thanos.monitoring:9091": check a may not send credentials prom there: ` +
				"it is not among the addresses of /creds/prom/addresses (https://prometheus.monitoring:9091)"},
		// An allowed host is no address of a credential.
		{`"address": "https://prometheus.monitoring", "credentials": "prom"`, limits,
			p + `address: Invalid value: "https://prometheus.monitoring": check a may not send credentials prom there`},
		{`"address": "https://prometheus.monitoring:9091", "credentials": "bare"`, limits,
			p + `credentials: Invalid value: "bare": credentials bare cannot be used by any check (check a names them): ` +
				"/creds/bare/addresses: does not exist"},
		{`"address": "https://prometheus.monitoring:9091", "credentials": "other"`, limits,
			p + `credentials: Invalid value: "other": check a names credentials other, which the manager's ` +
				"--metric-gate-credentials-dir (/creds) has no entry for"},
		{`"address": "http://prometheus.monitoring:9090"`, Limits{},
			p + `address: Invalid value: "http://prometheus.monitoring:9090": check a names no credentials, ` +
				"and the manager runs without --metric-gate-allowed-hosts, so it may reach no address: " +
				"list the Prometheus hosts there (Helm: metricGate.allowedHosts)"},
	} {
		load := LoadKeyWithin(endpointCheck(c.fields), c.limits)
		msgs := strings.Join(load.Messages(), "\n")
		if load.Valid() || !strings.Contains(msgs, c.want) {
			t.Errorf("%s:\nerrors %s\nwant one containing %s", c.fields, msgs, c.want)
		}
	}
	ok := LoadKeyWithin(endpointCheck(`"address": "https://prometheus.monitoring:9091/", "credentials": "prom"`), limits)
	if !ok.Valid() {
		t.Errorf("a listed address: %v", ok.Messages())
	}
	// kubectl nodeslo validate knows no limits: the same key is valid there.
	if load := LoadKey(endpointCheck(`"address": "http://prometheus.monitoring:9090"`)); !load.Valid() {
		t.Errorf("without the manager's limits: %v", load.Messages())
	}
}
