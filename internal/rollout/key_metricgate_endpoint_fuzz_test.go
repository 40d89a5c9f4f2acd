package rollout

import (
	"net/url"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// FuzzRolloutKey feeds whole strategies, as JSON, to the strategy's
// parser, as from whoever writes the NodeSLORollout's spec.strategy:
// it never panics; the manager's limits only add errors; and a metric
// check it accepts names credentials only as a DNS label, sends them only
// over https to a verified server listed in their addresses file, and
// without credentials names an allowed host.
func FuzzRolloutKey(f *testing.F) {
	for _, seed := range []string{
		`{"maxNodesPerStep": "10%", "canary": {"nodeSelector": {"matchLabels": {"canary": "true"}}}}`,
		`{"healthGate": {"metrics": [{"name": "a", "address": "https://prometheus.monitoring", "credentials": "prom",
			"query": "up", "max": 1}]}}`,
		`{"healthGate": {"metrics": [{"name": "a", "address": "https://p/prom/x", "credentials": "prom",
			"query": "up", "max": 1}, {"name": "b", "address": "https://p/prom/../admin", "credentials": "prom",
			"query": "up", "max": 1}, {"name": "c", "address": "https://p", "credentials": "bare", "query": "up", "max": 1}]}}`,
		`{"healthGate": {"metrics": [{"name": "a", "address": "http://p:9090", "bearerTokenFile": "/dev/zero",
			"query": "up", "max": 1}]}}`,
		`{"healthGate": {"metrics": [{"name": "a", "address": "https://p", "credentials": "../x", "insecureSkipVerify": true,
			"query": "up", "min": 0}]}}`,
		`{"healthGate": {"maxUnhealthyNodes": "10%", "onUnhealthy": "revert", "evictionReasons": ["Evicted"]}}`,
		`{"paused": true, "revisionHistoryLimit": 3, "stepIntervalSeconds": 0}`, `{`, `[]`, jsonNull,
	} {
		f.Add(seed)
	}
	prom, err := ParseCredentialAddresses("https://prometheus.monitoring\nhttps://p/prom\n")
	if err != nil {
		f.Fatal(err)
	}
	limits := Limits{AllowedHosts: []string{promHost, "p:443"}, CredentialsDir: credsDir,
		Credentials: map[string]CredentialEntry{promEntry: {Addresses: prom}, bareEntry: {Problem: noFile}}}
	f.Fuzz(func(t *testing.T, raw string) {
		data := map[string]string{string(sloconfig.KeyRollout): raw}
		within, anyone := LoadKeyWithin(data, limits), LoadKey(data)
		if within.Valid() && !anyone.Valid() {
			t.Fatalf("valid within the limits, invalid without: %v", anyone.Messages())
		}
		if !within.Valid() || within.Policy.HealthGate == nil {
			return
		}
		for _, c := range within.Policy.HealthGate.Metrics {
			u, err := url.Parse(c.Address)
			if err != nil || limits.CheckReach(c.Name, c.Address, c.Credentials) != nil {
				t.Errorf("check %s: address %q accepted outside what its credentials %q or the allowed hosts allow",
					c.Name, c.Address, c.Credentials)
				continue
			}
			if c.Credentials == "" {
				continue
			}
			if len(validation.IsDNS1123Label(c.Credentials)) > 0 || strings.ContainsAny(c.Credentials, "/.") {
				t.Errorf("check %s: credentials %q accepted", c.Name, c.Credentials)
			}
			if !strings.EqualFold(u.Scheme, "https") || c.InsecureSkipVerify {
				t.Errorf("check %s: credentials accepted for %q (insecureSkipVerify %v)", c.Name, c.Address, c.InsecureSkipVerify)
			}
		}
	})
}
