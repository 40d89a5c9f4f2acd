package plugin

import (
	"bytes"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

func TestConvertRolloutKeyPrintsTheNodeSLORolloutOfTheKeysPolicy(t *testing.T) {
	ref := ConfigMapRef{Namespace: sloconfig.DefaultConfigMapNamespace, Name: sloconfig.DefaultConfigMapName}
	cm := &ConfigMapInput{Data: map[string]string{string(sloconfig.KeyRollout): `{"maxNodesPerStep": "20%",
		"paused": true, "canary": {"nodeSelector": {"matchLabels": {"pool": "canary"}}, "soakSeconds": 60},
		"healthGate": {"onUnhealthy": "revert"}}`}}
	var out bytes.Buffer
	if err := ConvertRolloutKey(cm, ref, &out); err != nil {
		t.Fatal(err)
	}
	var printed struct {
		APIVersion, Kind string
		Metadata         map[string]string
		Spec             nodeslov1alpha1.NodeSLORolloutSpec
		Status           any
	}
	if err := yaml.UnmarshalStrict(out.Bytes(), &printed); err != nil {
		t.Fatalf("%v in:\n%s", err, out.String())
	}
	s := printed.Spec
	switch {
	case printed.Kind != "NodeSLORollout" || printed.Metadata["name"] != ref.Name ||
		printed.Metadata["namespace"] != ref.Namespace:
		t.Errorf("not the NodeSLORollout of the ConfigMap:\n%s", out.String())
	case printed.Status != nil || strings.Contains(out.String(), "creationTimestamp"):
		t.Errorf("prints more than it names:\n%s", out.String())
	case !s.Paused || s.Strategy == nil || s.Strategy.MaxNodesPerStep.String() != "20%" ||
		s.Strategy.Canary.NodeSelector.MatchLabels["pool"] != "canary" || *s.Strategy.Canary.SoakSeconds != 60 ||
		s.Strategy.HealthGate.OnUnhealthy != nodeslov1alpha1.OnUnhealthy("revert"):
		t.Errorf("the policy was not carried over:\n%s", out.String())
	}
}

func TestConvertRolloutKeyRefusesWhatTheStrategyCannotHold(t *testing.T) {
	ref := ConfigMapRef{Namespace: sloconfig.DefaultConfigMapNamespace, Name: sloconfig.DefaultConfigMapName}
	for _, tt := range []struct{ name, key, says string }{
		{"no key", "", "has no nodeslo-rollout-config key"},
		{"a field the strategy does not have", `{"healthGate": {"metrics": [{"name": "a",
			"address": "https://p", "query": "q", "max": 1, "bearerTokenFile": "/t"}]}}`,
			`unknown field "bearerTokenFile"`},
		{"what the controller refuses", `{"canary": {"nodeSelector": {"matchExpressions": ` +
			`[{"key": "a", "operator": "Near"}]}}}`, "spec.strategy.canary.nodeSelector.matchExpressions[0].operator"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cm := &ConfigMapInput{Data: map[string]string{}}
			if tt.key != "" {
				cm.Data[string(sloconfig.KeyRollout)] = tt.key
			}
			var out bytes.Buffer
			err := ConvertRolloutKey(cm, ref, &out)
			if err == nil || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("error %v, want one saying %q", err, tt.says)
			}
			if out.Len() > 0 {
				t.Errorf("printed %q on an error", out.String())
			}
		})
	}
}
