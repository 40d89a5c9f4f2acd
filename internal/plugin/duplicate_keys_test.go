package plugin

import (
	"strings"
	"testing"
)

// A data key written twice is read as its last value, with a warning naming
// the ConfigMap, the key and both lines; a List's items are checked too, and
// a file without repeats stays quiet.
func TestRepeatedDataKeysAreWarnedAbout(t *testing.T) {
	const twice = "kind: ConfigMap\nmetadata:\n  name: slo-controller-config\n  namespace: koordinator-system\ndata:\n" +
		"  cpu-burst-config: '{\"clusterStrategy\": {\"policy\": \"auto\"}}'\n" +
		"  cpu-burst-config: '{\"clusterStrategy\": {\"policy\": \"bogus\"}}'\n"
	list := "kind: List\nitems:\n- kind: ConfigMap\n  metadata: {name: slo-controller-config}\n" +
		"  binaryData:\n    a: e30=\n    a: e30=\n"
	tests := []struct {
		name, stdin string
		code        int
		warning     string // "" for none
	}{
		{"a repeated data key", twice, ExitInvalid, `warning: ConfigMap koordinator-system/slo-controller-config: ` +
			`data key "cpu-burst-config" is written 2 times (lines 6, 7); only the last, at line 7, is used`},
		{"a repeated binaryData key in a List", list, ExitOK, `warning: ConfigMap /slo-controller-config: ` +
			`binaryData key "a" is written 2 times (lines 6, 7); only the last, at line 7, is used`},
		{"no repeat", "kind: ConfigMap\ndata:\n  cpu-burst-config: '{}'\n  system-config: '{}'\n", ExitOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := run(t, tt.stdin, validateCmd, "-f", "-")
			if code != tt.code {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			if tt.warning == "" && strings.Contains(stderr, "written") {
				t.Errorf("unexpected warning:\n%s", stderr)
			}
			if tt.warning != "" && !strings.Contains(stderr, tt.warning) {
				t.Errorf("stderr lacks %q:\n%s", tt.warning, stderr)
			}
		})
	}
}
