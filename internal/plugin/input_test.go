package plugin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/test/fixtures"
)

const (
	validThreshold   = `{"clusterStrategy": {"enable": true}}`
	invalidThreshold = `{"clusterStrategy": {"memoryEvictThresholdPercent": 200}}`
)

// configMapYAML writes a ConfigMap manifest holding one threshold key.
func configMapYAML(namespace, name, threshold string) string {
	ns := ""
	if namespace != "" {
		ns = "\n  namespace: " + namespace
	}
	return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s%s\n"+
		"data:\n  resource-threshold-config: '%s'\n",
		name, ns, threshold)
}

// writeTemp writes content to a file of the test's temporary directory.
func writeTemp(t *testing.T, name string, content []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestConfigMapInput covers which ConfigMap of a file is read and how a
// malformed file is reported (docs/behaviour.md, "ConfigMap format").
func TestConfigMapInput(t *testing.T) {
	const (
		ns   = sloconfig.DefaultConfigMapNamespace
		name = sloconfig.DefaultConfigMapName
	)
	twoNamespaces := configMapYAML("default", name, validThreshold) + "---\n" + configMapYAML(ns, name, invalidThreshold)
	list := "apiVersion: v1\nkind: List\nitems:\n- " +
		strings.ReplaceAll(strings.TrimSuffix(configMapYAML(ns, name, invalidThreshold), "\n"), "\n", "\n  ") + "\n"
	tests := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout []string // substrings
		stderr []string // substrings
		quiet  bool     // no warning at all
	}{{
		name: "two ConfigMaps of that name: the namespace decides", stdin: twoNamespaces,
		code: ExitInvalid, stdout: []string{"memoryEvictThresholdPercent"}, quiet: true,
	}, {
		name: "two ConfigMaps of that name: --config-namespace picks", stdin: twoNamespaces,
		args: []string{"--config-namespace", "default"}, code: ExitOK, quiet: true,
	}, {
		name: "a manifest without namespace matches", stdin: configMapYAML("", name, invalidThreshold),
		code: ExitInvalid, quiet: true,
	}, {
		name: "a List, as kubectl get cm -o yaml prints", stdin: list,
		code: ExitInvalid, stdout: []string{"memoryEvictThresholdPercent"}, quiet: true,
	}, {
		name:  "the only ConfigMap, of another name, is read with a warning",
		stdin: configMapYAML("default", "other", validThreshold),
		code:  ExitOK,
		stderr: []string{"warning: the file's ConfigMap is default/other, " +
			"but the controller reads koordinator-system/slo-controller-config"},
	}, {
		name:   "the only one of that name, in another namespace, with a warning",
		stdin:  configMapYAML("default", name, validThreshold) + "---\n" + configMapYAML(ns, "other", invalidThreshold),
		code:   ExitOK,
		stderr: []string{"warning: the file's ConfigMap is default/slo-controller-config"},
	}, {
		name:  "still ambiguous: refused, naming the candidates",
		stdin: configMapYAML("a", name, validThreshold) + "---\n" + configMapYAML("b", name, validThreshold),
		code:  ExitVerdictError,
		stderr: []string{"2 ConfigMaps could be koordinator-system/slo-controller-config: a/slo-controller-config, " +
			"b/slo-controller-config; pick one with --config-namespace and --slo-config-name"},
	}, {
		name:  "none fits: refused, naming them",
		stdin: configMapYAML("", "p", validThreshold) + "---\n" + configMapYAML("", "q", validThreshold),
		code:  ExitVerdictError,
		stderr: []string{"2 ConfigMaps could be koordinator-system/slo-controller-config: " +
			"(no namespace)/p, (no namespace)/q"},
	}, {
		name:  "a key one edit away from a known one",
		stdin: "kind: ConfigMap\ndata:\n  resource-threshold-confg: '{}'\n  colocation-config: '{}'\n",
		code:  ExitOK,
		stderr: []string{`warning: data key "resource-threshold-confg" is ignored: ` +
			`did you mean "resource-threshold-config"?`},
	}, {
		name:   "configuration under binaryData",
		stdin:  "kind: ConfigMap\nbinaryData:\n  system-config: e30=\n",
		code:   ExitOK,
		stderr: []string{`warning: binaryData key "system-config" is ignored: the configuration is read from data only`},
	}, {
		name:  "a value written as a YAML map",
		stdin: "kind: ConfigMap\ndata:\n  system-config:\n    clusterStrategy: {}\n",
		code:  ExitVerdictError,
		stderr: []string{`error: data key "system-config": the value is a map, not a string: ` +
			`write the JSON document as a block scalar ("system-config: |" and the document on the next lines, indented)`},
	}, {
		name:   "a byte that is not UTF-8",
		stdin:  "kind: ConfigMap\ndata:\n  a: \"\xff\"\n",
		code:   ExitVerdictError,
		stderr: []string{"the ConfigMap file is not UTF-8: the byte at offset 28 (line 3) is 0xFF; save the file as UTF-8"},
	}, {
		name:   "UTF-16 with a byte-order mark",
		stdin:  "\xff\xfek\x00i\x00n\x00d\x00",
		code:   ExitVerdictError,
		stderr: []string{"the ConfigMap file is UTF-16 (it starts with a UTF-16 byte-order mark): save it as UTF-8"},
	}, {
		name:   "no ConfigMap in the file",
		stdin:  "kind: Node\nmetadata: {name: a}\n",
		code:   ExitVerdictError,
		stderr: []string{"no object of kind ConfigMap found"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, tt.stdin, append([]string{validateCmd, "-f", "-"}, tt.args...)...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			for _, want := range tt.stdout {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
			for _, want := range tt.stderr {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
			if tt.quiet && strings.Contains(stderr, "warning") {
				t.Errorf("unexpected warning:\n%s", stderr)
			}
		})
	}
}

// TestUsageMistakes covers mistakes in the command line itself.
func TestUsageMistakes(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"validate FILE without -f", []string{validateCmd, goodConfigMap},
			"validate takes no arguments: give files with flags, e.g. kubectl nodeslo validate -f " + goodConfigMap},
		{"render FILE without -f", []string{renderCmd, goodConfigMap}, "kubectl nodeslo render -f " + goodConfigMap},
		{"both inputs from stdin", []string{renderCmd, "-f", "-", nodesFlag, "-"},
			"-f - and --nodes - both read standard input, which holds one stream: give one of them as a file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, "kind: ConfigMap\n", tt.args...)
			if code != ExitVerdictError || stdout != "" || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit code %d, stdout %q, stderr %q; want %d and %q", code, stdout, stderr, ExitVerdictError, tt.stderr)
			}
		})
	}
}

// TestInputLimits: input over its limit is refused early, without being
// echoed, and long values are clipped in messages.
func TestInputLimits(t *testing.T) {
	t.Run("a ConfigMap file over the limit", func(t *testing.T) {
		path := writeTemp(t, "big.yaml", bytes.Repeat([]byte("x"), MaxConfigMapFileBytes+1))
		code, _, stderr := run(t, "", validateCmd, "-f", path)
		const want = "error: reading the ConfigMap: the ConfigMap file is larger than 3 MiB: refusing to read it\n"
		if code != ExitVerdictError || stderr != want {
			t.Errorf("exit code %d, stderr %q", code, stderr)
		}
	})
	t.Run("a ConfigMap file at the limit is read", func(t *testing.T) {
		cm := configMapYAML("", sloconfig.DefaultConfigMapName, "{}")
		padding := "#" + strings.Repeat("x", MaxConfigMapFileBytes-len(cm)-2) + "\n"
		code, _, stderr := run(t, padding+cm, validateCmd, "-f", "-")
		if code != ExitOK {
			t.Errorf("exit code %d, stderr %q", code, clip(stderr))
		}
	})
	t.Run("the reader stops at limit+1 bytes", func(t *testing.T) {
		src := &countingReader{}
		r := newCheckedReader(src, "the file", 1000)
		buf := make([]byte, 4096)
		var err error
		for err == nil {
			_, err = r.Read(buf)
		}
		if _, ok := err.(errTooLarge); !ok || src.n != 1001 {
			t.Errorf("err %v after %d bytes, want errTooLarge after 1001", err, src.n)
		}
	})
	t.Run("a long key is clipped in the message", func(t *testing.T) {
		key := strings.Repeat("k", 1000) // YAML allows 1024
		code, _, stderr := run(t, "kind: ConfigMap\ndata:\n  "+key+": {a: 1}\n", validateCmd, "-f", "-")
		if code != ExitVerdictError || len(stderr) > 500 || strings.Count(stderr, `kkk…(1000 bytes)`) != 2 {
			t.Errorf("exit code %d, stderr %q", code, stderr)
		}
	})
	t.Run("a long node name is clipped in a warning", func(t *testing.T) {
		name := strings.Repeat("n", 3000)
		nodes := writeTemp(t, "nodes.yaml", []byte("kind: Node\nmetadata:\n  name: "+name+
			"\n  annotations: {node.koordinator.sh/network-bandwidth: lots}\n"))
		code, stdout, stderr := run(t, "", renderCmd, nodesFlag, nodes)
		clipped := "warning: node " + strings.Repeat("n", 100) + "…(3000 bytes): InvalidNetworkBandwidth"
		if code != ExitOK || len(stderr) > 500 || !strings.Contains(stderr, clipped) || !strings.Contains(stdout, name) {
			t.Errorf("exit code %d, stderr %q", code, stderr)
		}
	})
}

type countingReader struct{ n int }

func (c *countingReader) Read(p []byte) (int, error) {
	c.n += len(p)
	return len(p), nil
}

func TestClip(t *testing.T) {
	if got := clip("short"); got != "short" {
		t.Errorf("clip(short) = %q", got)
	}
	long := strings.Repeat("é", 100) // 200 bytes: the cut must not split a rune
	if got := clip(long); got != strings.Repeat("é", 50)+"…(200 bytes)" {
		t.Errorf("clip(long) = %q", got)
	}
}

// wantNodes are the nodes every layout of nodeLayouts holds.
var wantNodes = []sloconfig.Node{
	{Name: "a", Labels: map[string]string{"tier": "big", "zone": "z1"},
		Annotations: map[string]string{sloconfig.NetworkBandwidthAnnotation: "10G"}},
	{Name: "b", Labels: map[string]string{"tier": "web"}},
}

// nodeLayouts are the ways a file may hold the two nodes of wantNodes.
var nodeLayouts = map[string]string{
	"kubectl -o yaml": `apiVersion: v1
items:
- apiVersion: v1
  kind: Node
  metadata:
    annotations:
      node.koordinator.sh/network-bandwidth: 10G
      other: "x"
    labels:
      tier: big
      zone: z1
    name: a
  spec:
    podCIDR: 10.0.0.0/24
  status:
    conditions:
    - type: Ready
      message: |
        kind: Pod
        - not: an item
- apiVersion: v1
  kind: Node
  metadata: {name: b, labels: {tier: web}}
kind: List
metadata:
  resourceVersion: ""
`,
	"kubectl -o json": `{"apiVersion": "v1", "items": [
 {"kind": "Node", "metadata": {"name": "a", "labels": {"tier": "big", "zone": "z1"},
  "annotations": {"node.koordinator.sh/network-bandwidth": "10G"}}, "status": {"x": [1, {"y": "z"}]}},
 {"kind": "Node", "metadata": {"name": "b", "labels": {"tier": "web"}}}], "kind": "List"}`,
	"indented items, a bare dash, comments": `kind: NodeList
items:
  # the first node
  -
    metadata:
      name: a
      labels: {tier: big, zone: z1}
      annotations: {node.koordinator.sh/network-bandwidth: 10G}
  -   kind: Node
      metadata:
        name: b

        labels:
          tier: web
`,
	"flow items": `kind: List
items: [{kind: Node, metadata: {name: a, labels: {tier: big, zone: z1},
  annotations: {node.koordinator.sh/network-bandwidth: 10G}}}, {metadata: {name: b, labels: {tier: web}}}]`,
	"flow mappings as block items": `kind: List
items:
- {kind: Node, metadata: {name: a, labels: {tier: big, zone: z1},
    annotations: {node.koordinator.sh/network-bandwidth: 10G}}, status: {x: y}}
- "metadata": {"name": "b", "labels": {"tier": "web"}}
  "status": {}
`,
	"documents of Nodes and lists": `# a comment-only document
---
kind: Node
metadata:
  name: a
  labels: {tier: big, zone: z1}
  annotations: {node.koordinator.sh/network-bandwidth: 10G}
--- # a separator with a comment
kind: NodeList
items:
- metadata: {name: b, labels: {tier: web}}
...
`,
}

func TestReadNodesLayouts(t *testing.T) {
	for name, layout := range nodeLayouts {
		t.Run(name, func(t *testing.T) {
			nodes, warnings, err := ReadNodes(strings.NewReader(layout))
			if err != nil || len(warnings) > 0 || !reflect.DeepEqual(nodes, wantNodes) {
				t.Errorf("nodes %+v, warnings %q, error %v", nodes, warnings, err)
			}
		})
	}
}

func TestReadNodesRefusals(t *testing.T) {
	tests := map[string]string{
		"kind: Pod\nmetadata: {name: p}\n":                        `document 1: kind "Pod" is not Node, NodeList or List`,
		`{"kind": "List", "items": [{"kind": "Pod"}]}`:            `document 1, item 1 has kind "Pod", not Node`,
		"kind: List\nitems:\n- kind: Pod\n":                       `document 1, item 1 (line 3) has kind "Pod", not Node`,
		"kind: Service\nitems:\n- kind: Node\n":                   `document 1: kind "Service" is not Node, NodeList or List`,
		"kind: [\n":                                               "document 1 (line 1)",
		"kind: List\nitems:\n- metadata:\n    labels: {a: [1]}\n": "document 1, item 1 (line 3)",
		"\xfe\xff\x00k":                                           "the nodes file is UTF-16",
		`{"kind": "List", "items": {}}`:                           "items is not a list",
		"kind: List\nitems:\n- metadata: {name: a}\n\xc3(\n": "the nodes file is not UTF-8: " +
			"the byte at offset 40 (line 4) is 0xC3",
	}
	for input, want := range tests {
		_, _, err := ReadNodes(strings.NewReader(input))
		if err == nil || !strings.Contains(sloconfig.ClipLine(err.Error()), want) {
			t.Errorf("%q: error %v, want %q", clip(input), err, want)
		}
	}
}

func TestReadNodesWarnings(t *testing.T) {
	tests := map[string][]string{
		"apiVersion: v1\nkind: List\nitems: []\n": {"the nodes file holds no Node: nothing to render"},
		"": {"the nodes file holds no Node: nothing to render"},
		"kind: NodeList\nitems:\n- metadata:\n    labels: {a: b}\n- metadata: {name: b}\n": {
			"document 1, item 1 (line 3), a Node, has no name"},
	}
	for input, want := range tests {
		_, warnings, err := ReadNodes(strings.NewReader(input))
		if err != nil || !reflect.DeepEqual(warnings, want) {
			t.Errorf("%q: warnings %q, error %v; want %q", input, warnings, err, want)
		}
	}
	code, stdout, stderr := run(t, "kind: List\nitems: []\n", renderCmd, nodesFlag, "-", "-o", formatJSON)
	if code != ExitOK || !strings.Contains(stderr, "warning: the nodes file holds no Node") ||
		stdout != "{\n    \"apiVersion\": \"v1\",\n    \"kind\": \"List\",\n    \"items\": []\n}\n" {
		t.Errorf("exit code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestRenderStreamsTheSameBytes: the list written item by item equals the
// list marshalled whole, in both formats, with names YAML must quote or
// could fold, and specs that differ by node.
func TestRenderStreamsTheSameBytes(t *testing.T) {
	cm, err := os.ReadFile(goodConfigMap)
	if err != nil {
		t.Fatal(err)
	}
	in, err := ReadConfigMap(bytes.NewReader(cm), ConfigMapRef{})
	if err != nil {
		t.Fatal(err)
	}
	var list bytes.Buffer
	if err := fixtures.WriteNodeList(&list, 60, true); err != nil {
		t.Fatal(err)
	}
	nodes, _, err := ReadNodes(&list)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("word ", 30)
	for _, name := range []string{"", "true", "123", "a: b", "#x", "é", long, strings.Repeat("y", 200), "x"} {
		nodes = append(nodes, sloconfig.Node{Name: name})
	}
	for _, n := range [][]sloconfig.Node{nodes, nil} {
		cfg := sloconfig.Load(in.Data, nil)
		whole := renderedList{APIVersion: "v1", Kind: "List", Items: []renderedNodeSLO{}}
		for _, node := range n {
			whole.Items = append(whole.Items, renderedNodeSLO{APIVersion: "slo.koordinator.sh/v1alpha1", Kind: "NodeSLO",
				Metadata: renderedMetadata{Name: node.Name}, Spec: cfg.Resolve(node, nil).Spec})
		}
		wantYAML, err := yaml.Marshal(whole)
		if err != nil {
			t.Fatal(err)
		}
		wantJSON, err := json.MarshalIndent(whole, "", "    ")
		if err != nil {
			t.Fatal(err)
		}
		for format, want := range map[string]string{"yaml": string(wantYAML), "json": string(wantJSON) + "\n"} {
			var out bytes.Buffer
			if _, err := Render(in.Data, n, outputFormat{form: format}, &out, &bytes.Buffer{}); err != nil {
				t.Fatal(err)
			}
			if out.String() != want {
				t.Errorf("%d nodes, %s: streamed output differs:\n%s\nwant\n%s", len(n), format, out.String(), want)
			}
		}
	}
}

// TestValidateAListGolden: a List of two same-named ConfigMaps is judged by
// the one in the controller's namespace, with its warnings.
func TestValidateAListGolden(t *testing.T) {
	code, stdout, stderr := run(t, "", validateCmd, "-f", "testdata/list-configmaps.yaml")
	if code != ExitInvalid {
		t.Errorf("exit code %d, want %d", code, ExitInvalid)
	}
	golden(t, "validate-list.txt", "stdout:\n"+stdout+"stderr:\n"+stderr)
}
