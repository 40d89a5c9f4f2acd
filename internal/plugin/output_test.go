package plugin

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// -o of kubectl, each form, on render (no cluster needed): the cluster
// commands' forms are checked against a kube-apiserver in
// cluster_output_test.go.
func TestRenderEachOutputForm(t *testing.T) {
	dir := t.TempDir()
	jsonPathFile := filepath.Join(dir, "names.jsonpath")
	columnsFile := filepath.Join(dir, "columns.txt")
	const columns = "NODE:.metadata.name,CPU:.spec.resourceUsedThresholdWithBE.cpuSuppressThresholdPercent," +
		"BANDWIDTH:spec.systemStrategy.totalNetworkBandwidth,ABSENT:{.spec.nothing}"
	for path, text := range map[string]string{
		jsonPathFile: "{range .items[*]}{.metadata.name}{\"\\n\"}{end}",
		columnsFile: "NODE  CPU  BANDWIDTH  ABSENT\n" +
			".metadata.name  .spec.resourceUsedThresholdWithBE.cpuSuppressThresholdPercent  " +
			"spec.systemStrategy.totalNetworkBandwidth  {.spec.nothing}\n",
	} {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	table := "NODE       CPU   BANDWIDTH   ABSENT\n" +
		"worker-1   80    25G         <none>\n" +
		"worker-2   60    1G          <none>\n" +
		"worker-3   60    1G          <none>\n"
	for _, tt := range []struct{ output, want string }{
		{"name", "nodeslo.slo.koordinator.sh/worker-1\nnodeslo.slo.koordinator.sh/worker-2\n" +
			"nodeslo.slo.koordinator.sh/worker-3\n"},
		{"jsonpath={.items[*].metadata.name}", "worker-1 worker-2 worker-3"},
		{"jsonpath={.items[?(@.spec.resourceUsedThresholdWithBE.cpuSuppressThresholdPercent>70)].metadata.name}",
			"worker-1"},
		{"jsonpath-as-json={.items[*].metadata.name}", "[\n    \"worker-1\",\n    \"worker-2\",\n    \"worker-3\"\n]\n"},
		{"jsonpath-file=" + jsonPathFile, "worker-1\nworker-2\nworker-3\n"},
		{"custom-columns=" + columns, table},
		{"custom-columns-file=" + columnsFile, table},
	} {
		code, stdout, stderr := run(t, "", renderCmd, "-f", goodConfigMap, nodesFlag, nodesFile, "-o", tt.output)
		if code != ExitOK || stdout != tt.want {
			t.Errorf("-o %s: exit %d, stderr %q; stdout\n%s\nwant\n%s", tt.output, code, stderr, stdout, tt.want)
		}
	}
	_, yamlOut, _ := run(t, "", renderCmd, "-f", goodConfigMap, nodesFlag, nodesFile)
	_, explicit, _ := run(t, "", renderCmd, "-f", goodConfigMap, nodesFlag, nodesFile, "-o", "yaml")
	if yamlOut != explicit || !strings.HasPrefix(yamlOut, "apiVersion: v1\nitems:\n") {
		t.Errorf("render's default is not -o yaml:\n%s", yamlOut)
	}
}

func TestVersionTemplates(t *testing.T) {
	code, stdout, stderr := run(t, "", versionCmd, "-o", "jsonpath={.gitVersion}")
	if code != ExitOK || stdout != unstampedVersion {
		t.Errorf("-o jsonpath: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, stdout, stderr = run(t, "", versionCmd, "-o", "custom-columns=VERSION:.gitVersion")
	if code != ExitOK || stdout != "VERSION\n"+unstampedVersion+"\n" {
		t.Errorf("-o custom-columns: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// A custom-columns cell: the values found, joined by commas; numbers as
// written (not 1e+06); an object or a list as JSON; nothing, or null, as
// <none>; control characters made inert, so that a cell stays one cell.
func TestCustomColumnsCells(t *testing.T) {
	type row struct {
		Name   string            `json:"name"`
		Big    int64             `json:"big"`
		Ratio  float64           `json:"ratio"`
		Labels map[string]string `json:"labels"`
		Tags   []string          `json:"tags"`
		Absent *string           `json:"absent"`
	}
	value := map[string][]row{"rows": {
		{Name: "a\tb\x1b[2K", Big: 1000000, Ratio: 0.5, Labels: map[string]string{"k": "v"}, Tags: []string{"x", "y"}},
		{Name: "c"},
	}}
	format, err := parseOutput("custom-columns=NAME:.name,BIG:.big,RATIO:.ratio,LABELS:.labels,"+
		"TAGS:.tags[*],ABSENT:.absent,MISSING:.missing", objectForms)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := format.print(&out, printable{value: value, rows: "rows"}); err != nil {
		t.Fatal(err)
	}
	want := "NAME          BIG       RATIO   LABELS      TAGS     ABSENT   MISSING\n" +
		`a\tb\x1b[2K` + "   1000000   0.5     {\"k\":\"v\"}   x,y      <none>   <none>\n" +
		"c             0         0       <none>      <none>   <none>   <none>\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

// -o completes with the forms the command offers; a template form with its
// "=" and no space after it.
func TestCompletionOfOutputFormats(t *testing.T) {
	got, directive := complete(t, rolloutCmd, statusCmd, "-o", "")
	want := []string{"custom-columns=", "custom-columns-file=", formatJSON, "jsonpath=", "jsonpath-as-json=",
		"jsonpath-file=", "name", wideFormat, "yaml"}
	if !slices.Equal(names(got), want) || directive != ":4" {
		t.Errorf("rollout status -o: %v %s, want %v :4 (no file)", names(got), directive, want)
	}
	got, directive = complete(t, rolloutCmd, historyCmd, "--output=jsonp")
	if !slices.Equal(names(got), []string{"jsonpath=", "jsonpath-as-json=", "jsonpath-file="}) || directive != ":6" {
		t.Errorf("--output=jsonp: %v %s, want the jsonpath forms and :6 (no space, no file)", got, directive)
	}
	got, _ = complete(t, renderCmd, "-o", "")
	if slices.Contains(names(got), wideFormat) || !slices.Contains(names(got), "name") {
		t.Errorf("render -o offers %v: wide is not render's", names(got))
	}
	got, _ = complete(t, versionCmd, "-o", "")
	if slices.Contains(names(got), "name") || !slices.Contains(names(got), "jsonpath=") {
		t.Errorf("version -o offers %v", names(got))
	}
	for _, cmd := range [][]string{{explainCmd}, {diffCmd}, {summaryCmd}, {rolloutCmd, historyCmd}} {
		got, _ = complete(t, append(cmd, "-o", "w")...)
		if !slices.Equal(names(got), []string{wideFormat}) {
			t.Errorf("%v -o w: %v", cmd, names(got))
		}
	}
}
