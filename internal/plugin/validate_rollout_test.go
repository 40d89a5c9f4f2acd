package plugin

import (
	"strings"
	"testing"
)

// retiredKeyLine is what validate and diff say of a ConfigMap that holds
// the retired rollout key, whatever its value.
const retiredKeyLine = "nodeslo-rollout-config: the staged rollout's policy is the NodeSLORollout's spec.strategy; " +
	"kubectl nodeslo rollout convert -f prints the NodeSLORollout that holds this key's policy " +
	"(docs/rollout.md#the-strategy)"

// The rollout key is retired: validate reports it, whatever its value, and
// judges nothing of the value (no error, no warning of its fields); the
// policy's problems are told by kubectl nodeslo rollout convert -f, which
// checks it as the controller checks spec.strategy (what the CRD's schema
// checks, bounds and the like, the apiserver refuses when the printed
// NodeSLORollout is applied).
func TestValidateReportsTheRetiredRolloutKey(t *testing.T) {
	tests := []struct {
		name  string
		value string
		// convert is what the error of convert says ("": it converts).
		convert string
	}{{
		name: "valid", value: `{"maxNodesPerStep": "5%", "canary": {"nodeSelector": {"matchLabels": {"canary": "true"}}}}`,
	}, {
		name: "canary without a selector", value: `{"canary": {}}`,
		convert: "spec.strategy.canary.nodeSelector: Required value: a canary needs a nodeSelector",
	}, {
		name: "a token file",
		value: `{"healthGate": {"metrics": [{"name": "a", "address": "http://p:9090", "query": "up", "max": 1,
			"bearerTokenFile": "/var/run/secrets/kubernetes.io/serviceaccount/token"}]}}`,
		convert: `unknown field "bearerTokenFile"`,
	}, {
		name:    "a selector the controller refuses",
		value:   `{"canary": {"nodeSelector": {"matchExpressions": [{"key": "a", "operator": "Near"}]}}}`,
		convert: `spec.strategy.canary.nodeSelector.matchExpressions[0].operator: Invalid value: "Near"`,
	}, {
		name: "unknown field", value: `{"pausd": true}`,
		convert: `unknown field "pausd"`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdin := "kind: ConfigMap\nmetadata: {name: slo-controller-config}\ndata:\n" +
				"  nodeslo-rollout-config: '" + tt.value + "'\n"
			code, stdout, stderr := run(t, stdin, validateCmd, "-f", "-")
			if code != ExitInvalid || stdout != retiredKeyLine+"\n" || stderr != "" {
				t.Errorf("validate: exit code %d, want %d; stdout:\n%s\nwant:\n%s\nstderr:\n%s",
					code, ExitInvalid, stdout, retiredKeyLine, stderr)
			}

			code, stdout, stderr = run(t, stdin, rolloutCmd, convertCmd, "-f", "-")
			switch {
			case tt.convert == "" && (code != ExitOK || !strings.Contains(stdout, "kind: NodeSLORollout\n")):
				t.Errorf("convert: exit code %d; stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			case tt.convert != "" && (code != ExitError || stdout != "" || !strings.Contains(stderr, tt.convert)):
				t.Errorf("convert: exit code %d, want %d; stdout:\n%s\nstderr lacks %q:\n%s",
					code, ExitError, stdout, tt.convert, stderr)
			}
		})
	}
}
