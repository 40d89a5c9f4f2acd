package plugin

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// kubectl's conventions in the plugin, where no cluster is needed
// (docs/kubectl-nodeslo.md#kubectls-conventions); the cluster_*_test.go
// specs check them against a real apiserver.

// The words of the commands these tests run.
const (
	listConfigMaps     = "testdata/list-configmaps.yaml"
	kubeconfigFlag     = "--kubeconfig"
	configNamespaceOpt = "--config-namespace"
	rolloutCmd         = "rollout"
	pauseCmd           = "pause"
	historyCmd         = "history"
	statusCmd          = "status"
	summaryCmd         = "summary"
	versionCmd         = "version"
	diffCmd            = "diff"
	explainCmd         = "explain"
	defaultNamespace   = "default"
	wideFormat         = "wide"
	batch1             = "batch-1"
	batch2             = "batch-2"
	web1               = "web-1"
	undoCmd            = "undo"
	resumeCmd          = "resume"
	retryCmd           = "retry"
	convertCmd         = "convert"
	contextFlag        = "--context"
	unknownFormat      = "xml"
)

// -n picks the ConfigMap of the namespace it names, as --config-namespace does.
func TestNamespaceFlagNamesTheConfigMapsNamespace(t *testing.T) {
	for _, args := range [][]string{
		{validateCmd, "-f", listConfigMaps, "-n", defaultNamespace},
		{validateCmd, "-f", listConfigMaps, "--namespace=default"},
		{validateCmd, "-f", listConfigMaps, configNamespaceOpt, defaultNamespace},
		{validateCmd, "-f", listConfigMaps, "-n", defaultNamespace, configNamespaceOpt, defaultNamespace},
		{renderCmd, "-f", listConfigMaps, "-n", defaultNamespace},
		{"-n", defaultNamespace, renderCmd, "-f", listConfigMaps},
		{"--namespace", "kube-system", validateCmd, "-f", listConfigMaps, "-n", defaultNamespace},
	} {
		code, _, stderr := run(t, "", args...)
		// default/slo-controller-config is valid and without warnings; the
		// one of koordinator-system has a misspelt key, warned about.
		if code != ExitOK || strings.Contains(stderr, "resource-threshold-confg") {
			t.Errorf("%v: exit %d, stderr:\n%s", args, code, stderr)
		}
	}
	code, _, stderr := run(t, "", validateCmd, "-f", listConfigMaps)
	if code != ExitInvalid || !strings.Contains(stderr, "resource-threshold-confg") {
		t.Errorf("without -n the ConfigMap of koordinator-system is read: exit %d, stderr:\n%s", code, stderr)
	}
}

func TestNamespaceFlagsThatDisagreeAreRefused(t *testing.T) {
	for _, cmd := range [][]string{{validateCmd, "-f", listConfigMaps}, {rolloutCmd, undoCmd}, {rolloutCmd, pauseCmd}} {
		args := append(cmd, "-n", "kube-system", configNamespaceOpt, "koordinator-system")
		code, stdout, stderr := run(t, "", args...)
		want := "error: -n kube-system and --config-namespace koordinator-system name different namespaces"
		if code == ExitOK || stdout != "" || !strings.HasPrefix(stderr, want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
}

// Every error exits 1, as in kubectl, but on validate, render and diff,
// whose 1 is a verdict: there an error exits 2, as in kubectl diff.
func TestExitStatusOfErrors(t *testing.T) {
	none := filepath.Join(t.TempDir(), "none")
	tests := []struct {
		args []string
		code int
	}{
		{[]string{explainCmd, "node-1", kubeconfigFlag, none}, ExitError},
		{[]string{explainCmd}, ExitError},
		{[]string{rolloutCmd, historyCmd, kubeconfigFlag, none}, ExitError},
		{[]string{rolloutCmd, historyCmd, "--revision", "two"}, ExitError},
		{[]string{rolloutCmd, undoCmd, kubeconfigFlag, none}, ExitError},
		{[]string{rolloutCmd, pauseCmd, kubeconfigFlag, none}, ExitError},
		{[]string{rolloutCmd, resumeCmd, kubeconfigFlag, none}, ExitError},
		{[]string{rolloutCmd, retryCmd, kubeconfigFlag, none}, ExitError},
		{[]string{rolloutCmd, statusCmd, kubeconfigFlag, none}, ExitError},
		{[]string{summaryCmd, kubeconfigFlag, none}, ExitError},
		{[]string{versionCmd, "--no-such-flag"}, ExitError},
		{[]string{"no-such-command"}, ExitError},
		{[]string{validateCmd, "-f", "testdata/nothing.yaml"}, ExitVerdictError},
		{[]string{validateCmd, "--no-such-flag"}, ExitVerdictError},
		{[]string{renderCmd, "-o", unknownFormat}, ExitVerdictError},
		{[]string{diffCmd, "-f", goodConfigMap, kubeconfigFlag, none}, ExitVerdictError},
	}
	for _, tt := range tests {
		code, _, stderr := run(t, "", tt.args...)
		if code != tt.code || !strings.HasPrefix(stderr, "error: ") {
			t.Errorf("%v: exit %d, want %d; stderr %q", tt.args, code, tt.code, stderr)
		}
	}
}

// validate's check against the live CRD is --check-crd; --server is
// kubectl's API server address, and its former use is answered clearly.
func TestValidateServerIsTheAPIServer(t *testing.T) {
	code, _, stderr := run(t, "", validateCmd, "-f", goodConfigMap, "--server")
	if code != ExitVerdictError || !strings.Contains(stderr, "use --check-crd") {
		t.Errorf("--server without a value: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = run(t, "", validateCmd, "-f", goodConfigMap, "-s", "https://127.0.0.1:1")
	if code != ExitVerdictError || !strings.Contains(stderr, "validate asks no server without --check-crd") {
		t.Errorf("--server without --check-crd: exit %d, stderr %q", code, stderr)
	}
	// With --check-crd, -s is where the dry run is sent: nothing listens there.
	code, _, stderr = run(t, "", validateCmd, "-f", goodConfigMap, "--check-crd", "-s", "https://127.0.0.1:1")
	if code != ExitVerdictError || !strings.Contains(stderr, "127.0.0.1:1") {
		t.Errorf("--check-crd -s: exit %d, stderr %q", code, stderr)
	}
}

// A kubeconfig whose user names the gcp auth-provider gets client-go's
// pointer to its exec plugin: the auth providers are linked, as in kubectl.
func TestAuthProvidersAreLinked(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	const config = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {auth-provider: {name: gcp}}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`
	if err := os.WriteFile(kubeconfig, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, "", rolloutCmd, historyCmd, kubeconfigFlag, kubeconfig)
	if code != ExitError || !strings.Contains(stderr, "gke-gcloud-auth-plugin") ||
		strings.Contains(stderr, "no Auth Provider found") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// rollout undo's --dry-run takes kubectl's values; alone it is client.
func TestUndoDryRunValues(t *testing.T) {
	code, _, stderr := run(t, "", rolloutCmd, undoCmd, "--dry-run=maybe")
	if code != ExitError || !strings.Contains(stderr, `invalid --dry-run value "maybe": must be none, client or server`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	for _, v := range []string{"none", "client", "server"} {
		if d, err := ParseDryRun(v); err != nil || string(d) != v {
			t.Errorf("%s: %q, %v", v, d, err)
		}
	}
	flag := NewRootCommand(IOStreams{}).Commands()
	for _, c := range flag {
		if c.Name() == rolloutCmd {
			undo, _, err := c.Find([]string{undoCmd})
			if err != nil || undo.Flags().Lookup("dry-run").NoOptDefVal != string(DryRunClient) {
				t.Errorf("--dry-run alone is not client: %v", err)
			}
		}
	}
}

// rollout history -o json: the documented fields, oldest first.
func TestHistoryOutput(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	h := testHistory(now)
	var out bytes.Buffer
	if err := writeStructured(&out, outputJSON, h.Output()); err != nil {
		t.Fatal(err)
	}
	var got HistoryOutput
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v in\n%s", err, out.String())
	}
	if got.ConfigMap != "koordinator-system/slo-controller-config" || len(got.Revisions) != 3 ||
		got.Revisions[0].Reached != nil || *got.Revisions[1].Reached != 3 || !got.Revisions[2].InForce ||
		got.Revisions[2].ChangeCause != "back to 60" ||
		!reflect.DeepEqual(got.Revisions[1].KeysChanged, []string{threshold}) {
		t.Errorf("got\n%s", out.String())
	}
	for _, field := range []string{
		`"revision": 1`, `"outcome": "AllAtOnce"`, `"inForce": true`, `"changedBy": "kubectl-edit"`,
	} {
		if !strings.Contains(out.String(), field) {
			t.Errorf("no %s in\n%s", field, out.String())
		}
	}
	out.Reset()
	if err := writeStructured(&out, outputYAML, h.RevisionOutput(h.Revisions[1])); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"revision: 2\n", "changesFromInForce:\n- new: 55\n  old: 60\n  path: " +
		threshold + ".clusterStrategy.cpuSuppressThresholdPercent\n", "data:\n  " + threshold + ": "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, out.String())
		}
	}
}

// diff -o json: counts, and each changed field's values as JSON.
func TestDiffOutput(t *testing.T) {
	r := DiffResult{Nodes: 3, Changed: []NodeDiff{
		{Node: "a", Created: true},
		{Node: "b", Changes: []FieldChange{{Path: "spec.x", Old: none, New: `{"y":1}`}}},
	}}
	var out bytes.Buffer
	if err := writeStructured(&out, outputJSON, r.Output()); err != nil {
		t.Fatal(err)
	}
	want := `{
  "valid": true,
  "nodes": 3,
  "updated": 1,
  "created": 1,
  "unchanged": 1,
  "changes": [
    {
      "node": "a",
      "created": true
    },
    {
      "node": "b",
      "fields": [
        {
          "path": "spec.x",
          "new": {
            "y": 1
          }
        }
      ]
    }
  ]
}
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

// A bad -o is refused before the cluster is asked (no kubeconfig here), in
// kubectl's words, naming the forms the command allows.
func TestOutputFormatsAreChecked(t *testing.T) {
	const allForms = "custom-columns,custom-columns-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,wide,yaml"
	noKubeconfig := filepath.Join(t.TempDir(), "none")
	for _, tt := range []struct {
		args  []string
		forms string
	}{
		{[]string{explainCmd, "n"}, allForms},
		{[]string{diffCmd, "-f", goodConfigMap}, allForms},
		{[]string{rolloutCmd, statusCmd}, allForms},
		{[]string{rolloutCmd, historyCmd}, allForms},
		{[]string{summaryCmd}, allForms},
		{[]string{renderCmd}, strings.Replace(allForms, ",wide", "", 1)},
		{[]string{versionCmd}, strings.Replace(strings.Replace(allForms, ",wide", "", 1), ",name", "", 1)},
	} {
		for _, bad := range []string{unknownFormat, "json=x", "name=x"} {
			args := append(slices.Clone(tt.args), "-o", bad, kubeconfigFlag, noKubeconfig)
			code, stdout, stderr := run(t, "", args...)
			want := `error: unable to match a printer suitable for the output format "` + bad +
				`", allowed formats are: ` + tt.forms + "\n"
			if code == ExitOK || stdout != "" || stderr != want {
				t.Errorf("%v: exit %d, stdout %q, stderr %q, want %q", args, code, stdout, stderr, want)
			}
		}
	}
	for value, says := range map[string]string{
		"jsonpath":                      "jsonpath format specified but no template given",
		"jsonpath={.a":                  "error parsing jsonpath {.a",
		"jsonpath-file=testdata/none":   "reading the -o template: open testdata/none",
		"custom-columns=NAME":           "unexpected custom-columns spec: NAME, expected <header>:<json-path-expr>",
		"custom-columns=A:{.a":          "unexpected path string {.a of column A",
		"custom-columns-file=" + badCol: "a custom-columns file has two lines",
	} {
		code, _, stderr := run(t, "", rolloutCmd, historyCmd, "-o", value, kubeconfigFlag, noKubeconfig)
		if code != ExitError || !strings.HasPrefix(stderr, "error: "+says) {
			t.Errorf("-o %s: exit %d, stderr %q, want %q", value, code, stderr, says)
		}
	}
}

// badCol is a custom-columns file of one line: headers without paths.
const badCol = "testdata/custom-columns-one-line.txt"

// complete runs cobra's __complete as kubectl_complete-nodeslo does, and
// returns the completions and the directive line.
func complete(t *testing.T, args ...string) (completions []string, directive string) {
	t.Helper()
	code, stdout, stderr := run(t, "", append([]string{"__complete"}, args...)...)
	if code != ExitOK {
		t.Fatalf("__complete %v: exit %d, stderr %q", args, code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	return lines[:len(lines)-1], lines[len(lines)-1]
}

// names drops the descriptions of completions.
func names(completions []string) []string {
	out := make([]string, len(completions))
	for i, c := range completions {
		out[i], _, _ = strings.Cut(c, "\t")
	}
	return out
}

// Subcommands and flags complete without a cluster.
func TestCompletionOfCommandsAndFlags(t *testing.T) {
	got, _ := complete(t, "")
	for _, want := range []string{diffCmd, explainCmd, "render", rolloutCmd, summaryCmd, "validate", versionCmd} {
		if !slices.Contains(names(got), want) {
			t.Errorf("commands: no %s in %v", want, got)
		}
	}
	if slices.Contains(names(got), "completion") {
		t.Errorf("the script-generating completion command is offered: %v", got)
	}
	got, _ = complete(t, rolloutCmd, "")
	want := []string{convertCmd, historyCmd, pauseCmd, resumeCmd, retryCmd, statusCmd, undoCmd}
	if !reflect.DeepEqual(names(got), want) {
		t.Errorf("rollout: %v, want %v", names(got), want)
	}
	got, _ = complete(t, rolloutCmd, undoCmd, "--dry")
	if !reflect.DeepEqual(names(got), []string{"--dry-run"}) {
		t.Errorf("--dry: %v", got)
	}
	got, directive := complete(t, rolloutCmd, undoCmd, "--dry-run=")
	if !reflect.DeepEqual(names(got), []string{"none", "client", "server"}) ||
		directive != ":4" {
		t.Errorf("--dry-run=: %v %s", got, directive)
	}
	got, _ = complete(t, explainCmd, "-")
	for _, want := range []string{"--selector", "--output", "--namespace", contextFlag, kubeconfigFlag} {
		if !slices.Contains(names(got), want) {
			t.Errorf("explain's flags: no %s in %v", want, names(got))
		}
	}
}

// kubectl's connection flags are global: before the command, a flag
// without a value is known as one (and does not swallow the command's
// name), --help works, and completion offers them.
func TestConnectionFlagsBeforeTheCommand(t *testing.T) {
	code, _, stderr := run(t, "", "--disable-compression", "--insecure-skip-tls-verify", validateCmd, "-f", goodConfigMap)
	if code != ExitOK {
		t.Errorf("boolean flags before validate: exit %d, stderr %q", code, stderr)
	}
	code, stdout, stderr := run(t, "", contextFlag, "prod", "-n", "team-a", "--help")
	if code != ExitOK || !strings.Contains(stdout, "rollout undo") {
		t.Errorf("--help after connection flags: exit %d, stderr %q", code, stderr)
	}
	got, _ := complete(t, "--cont")
	if !slices.Equal(names(got), []string{"--context"}) {
		t.Errorf("--cont before the command completes to %v", got)
	}
	got, _ = complete(t, contextFlag, "prod", rolloutCmd, "")
	if !slices.Contains(names(got), statusCmd) {
		t.Errorf("rollout's subcommands after --context prod: %v", got)
	}
	got, _ = complete(t, rolloutCmd, statusCmd, "--v")
	if !slices.Equal(names(got), []string{"--v", "--vmodule"}) {
		t.Errorf("--v completes to %v", got)
	}
}

// The root's help lists every command, rollout's subcommands included,
// each with its summary.
func TestRootHelpListsEveryCommand(t *testing.T) {
	code, stdout, stderr := run(t, "", "--help")
	if code != ExitOK {
		t.Fatalf("--help: exit %d, stderr %q", code, stderr)
	}
	subcommands := []string{historyCmd, pauseCmd, resumeCmd, retryCmd, statusCmd, undoCmd}
	want := make([]string, 0, 6+len(subcommands))
	want = append(want, diffCmd, explainCmd, renderCmd, summaryCmd, validateCmd, versionCmd)
	for _, sub := range subcommands {
		want = append(want, rolloutCmd+" "+sub)
	}
	root := NewRootCommand(IOStreams{})
	for _, path := range want {
		cmd, _, err := root.Find(strings.Fields(path))
		if err != nil || cmd.CommandPath() != "kubectl nodeslo "+path {
			t.Fatalf("%s: no such command (%v)", path, err)
		}
		line := regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(path) + ` +` + regexp.QuoteMeta(cmd.Short) + `$`)
		if !line.MatchString(stdout) {
			t.Errorf("the root's help has no line for %q with its summary:\n%s", path, stdout)
		}
	}
}
