package plugin

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	apimachineryversion "k8s.io/apimachinery/pkg/version"
	"sigs.k8s.io/yaml"
)

// go test links no version: the plugin reports the dev version. That the
// released binary reports the release's is tested on the archives by
// test/release.
const unstampedVersion = "v0.0.0-dev"

func TestVersionPrintsOneLine(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, stdout, stderr := run(t, "", args...)
		if code != ExitOK || stderr != "" {
			t.Fatalf("%v: exit %d, stderr %q", args, code, stderr)
		}
		want := "kubectl-nodeslo " + unstampedVersion + " (revision unknown, " + runtime.Version() + ", " +
			runtime.GOOS + "/" + runtime.GOARCH + ")\n"
		if stdout != want {
			t.Errorf("%v printed %q, want %q", args, stdout, want)
		}
	}
}

func TestVersionStructuredOutput(t *testing.T) {
	for _, format := range []string{outputJSON, outputYAML} {
		code, stdout, stderr := run(t, "", "version", "-o", format)
		if code != ExitOK || stderr != "" {
			t.Fatalf("-o %s: exit %d, stderr %q", format, code, stderr)
		}
		var info apimachineryversion.Info
		var err error
		if format == outputJSON {
			err = json.Unmarshal([]byte(stdout), &info)
		} else {
			err = yaml.UnmarshalStrict([]byte(stdout), &info)
		}
		if err != nil {
			t.Fatalf("-o %s: %v in %q", format, err, stdout)
		}
		if info.GitVersion != unstampedVersion || info.GoVersion != runtime.Version() {
			t.Errorf("-o %s: %+v", format, info)
		}
	}
}

func TestVersionRejectsUnknownFormatAndArguments(t *testing.T) {
	code, _, stderr := run(t, "", "version", "-o", "xml")
	if code != ExitError || !strings.Contains(stderr, `unable to match a printer suitable for the output format "xml", `+
		`allowed formats are: custom-columns,custom-columns-file,json,jsonpath,jsonpath-as-json,jsonpath-file,yaml`) {
		t.Errorf("-o xml: exit %d, stderr %q", code, stderr)
	}
	if code, _, _ := run(t, "", "version", "extra"); code != ExitError {
		t.Errorf("an argument: exit %d, want %d", code, ExitError)
	}
}
