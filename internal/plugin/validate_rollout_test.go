package plugin

import (
	"strings"
	"testing"
)

func TestValidateRolloutKey(t *testing.T) {
	tests := []struct {
		name   string
		value  string
		code   int
		stdout string
		stderr string
	}{{
		name: "valid", value: `{"maxNodesPerStep": "5%", "canary": {"nodeSelector": {"matchLabels": {"canary": "true"}}}}`,
		code: ExitOK,
	}, {
		name: "out of bounds", value: `{"stepIntervalSeconds": -5}`,
		code:   ExitInvalid,
		stdout: "nodeslo-rollout-config: stepIntervalSeconds: Invalid value: -5: must be between 0 and 86400, inclusive\n",
	}, {
		name: "canary without a selector", value: `{"canary": {}}`,
		code:   ExitInvalid,
		stdout: "nodeslo-rollout-config: canary.nodeSelector: Required value: a canary needs a nodeSelector",
	}, {
		name: "a token file",
		value: `{"healthGate": {"metrics": [{"name": "a", "address": "http://p:9090", "query": "up", "max": 1,
			"bearerTokenFile": "/var/run/secrets/kubernetes.io/serviceaccount/token"}]}}`,
		code: ExitInvalid,
		stdout: "nodeslo-rollout-config: healthGate.metrics[0].bearerTokenFile: Forbidden: a ConfigMap names no file: " +
			`put the token, as the file "token", in an entry of the manager's --metric-gate-credentials-dir`,
	}, {
		name: "a credential over http",
		value: `{"healthGate": {"metrics": [{"name": "a", "address": "http://p:9090", "query": "up", "max": 1,
			"credentials": "prometheus"}]}}`,
		code: ExitInvalid,
		stdout: `nodeslo-rollout-config: healthGate.metrics[0].address: Invalid value: "http://p:9090": ` +
			"must be https when credentials is set",
	}, {
		name: "unknown field", value: `{"pausd": true}`,
		code:   ExitOK,
		stderr: `warning: nodeslo-rollout-config: pausd: unknown field, ignored; did you mean "paused"? (line 1, column 2)`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdin := "kind: ConfigMap\nmetadata: {name: slo-controller-config}\ndata:\n" +
				"  nodeslo-rollout-config: '" + tt.value + "'\n"
			code, stdout, stderr := run(t, stdin, validateCmd, "-f", "-")
			if code != tt.code {
				t.Errorf("exit code %d, want %d; stdout:\n%s", code, tt.code, stdout)
			}
			if !strings.HasPrefix(stdout, tt.stdout) || (tt.stdout == "" && stdout != "") {
				t.Errorf("stdout\n got %q\nwant %q", stdout, tt.stdout)
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, stderr)
			}
		})
	}
}
