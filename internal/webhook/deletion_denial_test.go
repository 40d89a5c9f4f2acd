package webhook

import (
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// The denial's words for the counts the envtest suite does not reach: no
// node, one node, and a Node cache that did not answer.
func TestDeletionDenialSaysWhatWouldBeReset(t *testing.T) {
	key := configKey
	const allow = "To delete it anyway, first run: kubectl annotate configmap slo-controller-config " +
		"-n koordinator-system nodeslo.koordinator.sh/allow-delete=true --overwrite"
	tests := []struct {
		name      string
		nodes     int
		listErr   error
		value     string
		annotated bool
		want      string
	}{
		{name: "no node", want: "would reset every node's NodeSLO to the defaults (there is no node now). " + allow},
		{name: "one node", nodes: 1, want: "would reset the NodeSLO of the one node to the defaults. " + allow},
		{name: "many nodes", nodes: 12000, want: "would reset the NodeSLOs of all 12000 nodes to the defaults. " + allow},
		{
			name: "nodes not counted", listErr: errors.New("timed out"),
			want: "would reset every node's NodeSLO to the defaults (the nodes could not be counted: timed out). " + allow,
		},
		{
			name: "another value", nodes: 2, value: strings.Repeat("y", 200), annotated: true,
			want: `(its nodeslo.koordinator.sh/allow-delete is "` + strings.Repeat("y", 100) +
				`…(200 bytes)"; only "true" allows the deletion)`,
		},
		{
			name: "set empty", nodes: 2, annotated: true,
			want: `(its nodeslo.koordinator.sh/allow-delete is ""; only "true" allows the deletion)`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := resetDenial(deleting, key, tc.nodes, tc.listErr, tc.value, tc.annotated)
			if !apierrors.IsForbidden(err) {
				t.Fatalf("not Forbidden: %v", err)
			}
			if !strings.HasPrefix(err.Error(), `configmaps "slo-controller-config" is forbidden: deleting ConfigMap `+
				`koordinator-system/slo-controller-config `) || !strings.HasSuffix(err.Error(), tc.want) {
				t.Errorf("message:\n%s\nwant it to end with:\n%s", err, tc.want)
			}
		})
	}
}

// An update that empties data is denied with the deletion's words, naming
// the keys it took out of data and the same command.
func TestEmptyingDenialSaysWhatWouldBeReset(t *testing.T) {
	key := configKey
	err := resetDenial(emptyingData, key, 3, nil, "yes", true)
	if !apierrors.IsForbidden(err) {
		t.Fatalf("not Forbidden: %v", err)
	}
	const want = `configmaps "slo-controller-config" is forbidden: emptying ConfigMap ` +
		`koordinator-system/slo-controller-config (this update leaves none of resource-threshold-config, ` +
		`resource-qos-config, cpu-burst-config, system-config, host-application-config in data; ` +
		`binaryData is not read) would reset the NodeSLOs of all 3 nodes to the defaults. ` +
		`To empty it anyway, first run: kubectl annotate configmap slo-controller-config ` +
		`-n koordinator-system nodeslo.koordinator.sh/allow-delete=true --overwrite ` +
		`(its nodeslo.koordinator.sh/allow-delete is "yes"; only "true" allows the update)`
	if err.Error() != want {
		t.Errorf("message:\n%s\nwant:\n%s", err, want)
	}
}
