package webhook

import (
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
)

// The denial's words for the counts the envtest suite does not reach: no
// node, one node, and a Node cache that did not answer.
func TestDeletionDenialSaysWhatWouldBeReset(t *testing.T) {
	key := types.NamespacedName{Namespace: "koordinator-system", Name: "slo-controller-config"}
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
			err := deletionDenial(key, tc.nodes, tc.listErr, tc.value, tc.annotated)
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
