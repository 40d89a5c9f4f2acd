package plugin

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	formatJSON    = "json"
	validateCmd   = "validate"
	renderCmd     = "render"
	goodConfigMap = "testdata/good-configmap.yaml"
	badConfigMap  = "testdata/bad-configmap.yaml"
	nodesFile     = "testdata/nodes.yaml"
	nodesFlag     = "--nodes"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// run executes the plugin with args, as main does.
func run(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Execute(args, IOStreams{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut})
	return code, out.String(), errOut.String()
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the golden file (run go test -update to create it): %v", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s:\n%s", path, got)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   []string // lines expected, in order
		stderr   []string // substrings expected
		noStdout bool
	}{{
		name: "a valid ConfigMap", args: []string{validateCmd, "-f", goodConfigMap},
		code: ExitOK, noStdout: true,
		stderr: []string{"warning: system-config: nodeStrategies[0].nodeSelector: {} matches every node"},
	}, {
		name: "an invalid ConfigMap", args: []string{validateCmd, "-f", badConfigMap},
		code: ExitInvalid,
		stdout: []string{
			"resource-threshold-config: clusterStrategy.memoryEvictLowerPercent: Invalid value: 90: " +
				"must be less than memoryEvictThresholdPercent (80)",
			"resource-threshold-config: nodeStrategies[0].nodeSelector: Required value: " +
				"an entry without a nodeSelector never matches any node; write {} to match every node",
			"cpu-burst-config: Invalid value: invalid JSON at line 1, column 39: " +
				"invalid character '}' looking for beginning of object key string",
		},
		stderr: []string{`warning: resource-threshold-config: nodeStrategies[0].cpuSuppresThresholdPercent: ` +
			`unknown field, ignored; did you mean "cpuSuppressThresholdPercent"? (line 3, column 39)`},
	}, {
		name: "from stdin", args: []string{validateCmd, "-f", "-"},
		code: ExitOK, noStdout: true,
	}, {
		name: "a missing file", args: []string{validateCmd, "-f", "testdata/nothing.yaml"},
		code: ExitVerdictError, noStdout: true, stderr: []string{"error: open testdata/nothing.yaml"},
	}, {
		name: "no file", args: []string{validateCmd},
		code: ExitVerdictError, noStdout: true, stderr: []string{"--filename (-f) is required"},
	}, {
		name: "not a ConfigMap", args: []string{validateCmd, "-f", nodesFile},
		code: ExitVerdictError, noStdout: true, stderr: []string{"no object of kind ConfigMap"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, "kind: ConfigMap\ndata: {}\n", tt.args...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			if tt.noStdout && stdout != "" {
				t.Errorf("unexpected stdout:\n%s", stdout)
			}
			if tt.stdout != nil && stdout != strings.Join(tt.stdout, "\n")+"\n" {
				t.Errorf("stdout\n got %s\nwant %s", stdout, strings.Join(tt.stdout, "\n"))
			}
			for _, want := range tt.stderr {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
		})
	}
}

// validate --nodes: docs/kubectl-nodeslo.md.
func TestValidateWithNodes(t *testing.T) {
	webNodes := "kind: NodeList\nitems:\n- metadata: {name: web-1, labels: {pool: web}}\n" +
		"- metadata: {name: web-2, labels: {pool: web}}\n"
	const matchesNone = "matches none"
	const unmatched = "warning: resource-threshold-config: nodeStrategies[0].nodeSelector: node strategy " +
		`"batch" matches none of the 2 nodes in the nodes file, so it applies to no node (selector: pool=batch)`
	tests := []struct {
		name, stdin string
		args        []string
		code        int
		stderr      []string // lines expected, in order, among the output
		notInStderr string
	}{{
		name: "every strategy matches a node", args: []string{validateCmd, "-f", goodConfigMap, nodesFlag, nodesFile},
		code: ExitOK, notInStderr: matchesNone,
	}, {
		name: "a strategy matches none of the nodes", stdin: webNodes,
		args: []string{validateCmd, "-f", goodConfigMap, nodesFlag, "-"},
		code: ExitOK,
		// After the ConfigMap's own warnings; {} matches every node and is not warned about.
		stderr: []string{"warning: system-config: nodeStrategies[0].nodeSelector: {} matches every node", unmatched},
	}, {
		name: "one node", stdin: "kind: Node\nmetadata: {name: web-1}\n",
		args: []string{validateCmd, "-f", goodConfigMap, nodesFlag, "-"},
		code: ExitOK, stderr: []string{`node strategy "batch" does not match the one node in the nodes file`},
	}, {
		name: "no node: nothing to say about the selectors", stdin: "kind: List\nitems: []\n",
		args: []string{validateCmd, "-f", goodConfigMap, nodesFlag, "-"},
		code: ExitOK, stderr: []string{"warning: the nodes file holds no Node"}, notInStderr: matchesNone,
	}, {
		name: "an invalid key has no strategy to check; the exit status is validate's", stdin: webNodes,
		args: []string{validateCmd, "-f", badConfigMap, nodesFlag, "-"},
		code: ExitInvalid, notInStderr: matchesNone,
	}, {
		name: "both from stdin", args: []string{validateCmd, "-f", "-", nodesFlag, "-"},
		code: ExitVerdictError, stderr: []string{"-f - and --nodes - both read standard input"},
	}, {
		name: "an unreadable nodes file", args: []string{validateCmd, "-f", goodConfigMap, nodesFlag, goodConfigMap},
		code: ExitVerdictError, stderr: []string{`kind "ConfigMap" is not Node, NodeList or List`},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := run(t, tt.stdin, tt.args...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			rest := stderr
			for _, want := range tt.stderr {
				i := strings.Index(rest, want)
				if i < 0 {
					t.Errorf("stderr lacks %q (in this order):\n%s", want, stderr)
					break
				}
				rest = rest[i+len(want):]
			}
			if tt.notInStderr != "" && strings.Contains(stderr, tt.notInStderr) {
				t.Errorf("stderr has %q:\n%s", tt.notInStderr, stderr)
			}
		})
	}
}

func TestRender(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		golden string
		code   int
		stderr []string
	}{
		{"no ConfigMap, one default node", []string{renderCmd, "-o", formatJSON}, "render-default.json", ExitOK, nil},
		{"a ConfigMap and nodes", []string{renderCmd, "-f", goodConfigMap, nodesFlag, nodesFile},
			"render-good.yaml", ExitOK,
			[]string{`warning: node worker-2: InvalidNetworkBandwidth: ` +
				`annotation node.koordinator.sh/network-bandwidth="lots" is ignored`}},
		{"invalid keys render as on a fresh start",
			[]string{renderCmd, "-f", badConfigMap, nodesFlag, nodesFile, "-o", formatJSON},
			"render-bad.json", ExitOK, []string{"cpu-burst-config: Invalid value: invalid JSON"}},
		{"--strict fails on invalid keys", []string{renderCmd, "--strict", "-f", badConfigMap, "-o", formatJSON},
			"", ExitInvalid, []string{"resource-threshold-config: clusterStrategy.memoryEvictLowerPercent"}},
		{"unknown format", []string{renderCmd, "-o", unknownFormat}, "", ExitVerdictError, []string{
			`unable to match a printer suitable for the output format "xml", allowed formats are: ` +
				`custom-columns,custom-columns-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,yaml`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, "", tt.args...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			if tt.golden != "" {
				golden(t, tt.golden, stdout)
			}
			for _, want := range tt.stderr {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
		})
	}
}

func TestReadNodes(t *testing.T) {
	const list = `{"kind": "List", "items": [{"kind": "Node", "metadata": {"name": "a", "labels": {"x": "y"}}}]}`
	nodes, _, err := ReadNodes(strings.NewReader(list))
	if err != nil || len(nodes) != 1 || nodes[0].Name != "a" || nodes[0].Labels["x"] != "y" {
		t.Errorf("nodes %+v, error %v", nodes, err)
	}
	for _, bad := range []string{
		"kind: Pod\nmetadata: {name: p}\n",
		`{"kind": "List", "items": [{"kind": "Pod"}]}`,
		"kind: [\n",
	} {
		if _, _, err := ReadNodes(strings.NewReader(bad)); err == nil {
			t.Errorf("no error for %q", bad)
		}
	}
}
