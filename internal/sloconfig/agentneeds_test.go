package sloconfig

import (
	"strings"
	"testing"
)

// Values the engine once called valid although the apiserver refuses the
// NodeSLO they produce (so that no node gets one) or the node agent cannot
// use it (docs/behaviour.md, "Bad input"). Each must now reject its key with
// the path of the offending value.
func TestValuesTheAPIServerOrTheAgentRefuseAreRejectedWithTheirPath(t *testing.T) {
	const (
		qos = KeyResourceQOS
		sys = KeySystem
		ha  = KeyHostApplication
	)
	tests := []struct {
		name string
		key  Key
		doc  string
		want string // the start of one error line
	}{
		{"a null block", qos, `{"clusterStrategy": {"lsClass": {"blkioQOS": {"enable": true, "blocks": [null]}}}}`,
			"resource-qos-config: clusterStrategy.lsClass.blkioQOS.blocks[0]: Required value: a list element cannot be null"},
		{"a null block after a good one, in a node strategy", qos,
			`{"nodeStrategies": [{"nodeSelector": {}, ` +
				`"beClass": {"blkioQOS": {"blocks": [{"name": "sda", "type": "device"}, null]}}}]}`,
			"resource-qos-config: nodeStrategies[0].beClass.blkioQOS.blocks[1]: Required value"},
		{"a block without a type", qos, `{"clusterStrategy": {"beClass": {"blkioQOS": {"blocks": [{"name": "/dev/sda"}]}}}}`,
			"resource-qos-config: clusterStrategy.beClass.blkioQOS.blocks[0].type: Required value"},
		{"an empty block", qos, `{"clusterStrategy": {"cgroupRoot": {"blkioQOS": {"blocks": [{}]}}}}`,
			"resource-qos-config: clusterStrategy.cgroupRoot.blkioQOS.blocks[0].name: Required value"},
		{"a null application", ha, `{"applications": [null]}`,
			"host-application-config: applications[0]: Required value: a list element cannot be null"},
		{"a null application in a node config", ha,
			`{"nodeConfigs": [{"nodeSelector": {}, "applications": [{"name": "a"}, null]}]}`,
			"host-application-config: nodeConfigs[0].applications[1]: Required value"},
		{"an empty application", ha, `{"applications": [{}]}`,
			"host-application-config: applications[0].name: Required value"},
		{"an application without a name", ha, `{"applications": [{"qos": "LS"}]}`,
			"host-application-config: applications[0].name: Required value"},
		{"a null match expression", sys, `{"nodeStrategies": [{"nodeSelector": {"matchExpressions": [null]}}]}`,
			"system-config: nodeStrategies[0].nodeSelector.matchExpressions[0]: Required value"},
		{"a bandwidth beyond int64", sys, `{"clusterStrategy": {"totalNetworkBandwidth": "1e400"}}`,
			`system-config: clusterStrategy.totalNetworkBandwidth: ` +
				`Invalid value: "10e399": must be at most 9223372036854775807`},
		{"a bandwidth one above int64", sys, `{"clusterStrategy": {"totalNetworkBandwidth": 9223372036854775808}}`,
			"system-config: clusterStrategy.totalNetworkBandwidth: Invalid value"},
		{"a negative bandwidth", sys, `{"nodeStrategies": [{"nodeSelector": {}, "totalNetworkBandwidth": "-1G"}]}`,
			`system-config: nodeStrategies[0].totalNetworkBandwidth: Invalid value: "-1G": must not be negative`},
		{"a network QoS limit beyond int64", qos,
			`{"clusterStrategy": {"beClass": {"networkQOS": {"egressLimit": "1e400"}}}}`,
			`resource-qos-config: clusterStrategy.beClass.networkQOS.egressLimit: ` +
				`Invalid value: "10e399": must be at most`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := report(Load(map[string]string{string(tt.key): tt.doc}, nil), tt.key)
			if got := errorsText(r); r.Valid() || !hasLinePrefix(got, tt.want) {
				t.Errorf("want an error line starting with\n  %s\ngot:\n%s", tt.want, got)
			}
		})
	}
}

func hasLinePrefix(text, prefix string) bool {
	for line := range strings.SplitSeq(text, "\n") {
		if strings.HasPrefix(line, prefix) {
			return true
		}
	}
	return false
}

// The largest bandwidth the agent can read is accepted, in the strategy and
// in the annotation; one more is refused in both.
func TestBandwidthBound(t *testing.T) {
	const largest, tooLarge = "9223372036854775807", "9223372036854775808"
	doc := func(v string) map[string]string {
		return map[string]string{string(KeySystem): `{"clusterStrategy": {"totalNetworkBandwidth": "` + v + `"}}`}
	}
	if r := report(Load(doc(largest), nil), KeySystem); !r.Valid() {
		t.Errorf("the largest bandwidth was rejected: %s", errorsText(r))
	}
	if r := report(Load(doc(tooLarge), nil), KeySystem); r.Valid() {
		t.Error("a bandwidth above the int64 range was accepted")
	}

	const kept = "10G" // the strategy's value, which a bad annotation leaves in place
	c := Load(doc(kept), nil)
	for _, tt := range []struct {
		annotation, want string
		warning          bool
	}{{largest, largest, false}, {tooLarge, kept, true}, {"1e400", kept, true}, {"-1", kept, true}} {
		res := c.Resolve(Node{Name: "n", Annotations: map[string]string{NetworkBandwidthAnnotation: tt.annotation}}, nil)
		if got := res.Spec.SystemStrategy.TotalNetworkBandwidth.String(); got != tt.want {
			t.Errorf("annotation %s: totalNetworkBandwidth %s, want %s", tt.annotation, got, tt.want)
		}
		warned := len(res.Warnings) == 1 && res.Warnings[0].Reason == ReasonInvalidNetworkBandwidth
		if warned != tt.warning {
			t.Errorf("annotation %s: warnings %+v, want an %s warning: %v",
				tt.annotation, res.Warnings, ReasonInvalidNetworkBandwidth, tt.warning)
		}
	}
}
