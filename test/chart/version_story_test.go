package chart

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/nodeslo/nodeslo-controller/internal/version"
)

// One version story: until a release is tagged, every artifact says the
// same development version. The chart's version and appVersion (which its
// image tag defaults to) are the version the binaries are stamped with
// when no -ldflags set it (internal/version) and that hack/version.sh
// prints for a checkout without a vX.Y.Z tag; CHANGELOG.md has a section
// only for versions tagged in this checkout, and links to no tag that does
// not exist; the docs' install examples name the image tag through
// hack/version.sh rather than a version of their own.
func TestOneVersionStory(t *testing.T) {
	dev := version.Version()
	chartYAML, err := os.ReadFile("../../dist/chart/Chart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var chart struct{ Version, AppVersion string }
	if err := yaml.Unmarshal(chartYAML, &chart); err != nil {
		t.Fatal(err)
	}
	if chart.Version != dev || chart.AppVersion != dev {
		t.Errorf("dist/chart/Chart.yaml: version %q, appVersion %q; an untagged build is %q (internal/version)",
			chart.Version, chart.AppVersion, dev)
	}
	script, err := os.ReadFile("../../hack/version.sh")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(script), `echo "`+dev+`"`) {
		t.Errorf("hack/version.sh does not print %q for a checkout without a tag", dev)
	}

	tagged := map[string]bool{}
	if out, err := exec.Command("git", "tag", "--list", "v*").Output(); err == nil {
		for tag := range strings.FieldsSeq(string(out)) {
			tagged[strings.TrimPrefix(tag, "v")] = true
		}
	}
	changelog, err := os.ReadFile(filepath.Join("..", "..", "CHANGELOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`(?m)^## \[([^\]]+)\]`).FindAllStringSubmatch(string(changelog), -1) {
		if m[1] != "Unreleased" && !tagged[m[1]] {
			t.Errorf("CHANGELOG.md has a section for %s, which no tag v%s of this checkout releases", m[1], m[1])
		}
	}
	for _, m := range regexp.MustCompile(`/(?:compare|releases/tag)/[^\s)]*v(\d+\.\d+\.\d+)`).
		FindAllStringSubmatch(string(changelog), -1) {
		if !tagged[m[1]] {
			t.Errorf("CHANGELOG.md links to the tag v%s, which does not exist", m[1])
		}
	}

	pinned := regexp.MustCompile(`nodeslo-controller:v\d|image\.tag=v\d`)
	for _, page := range []string{"README.md", "dist/chart/README.md", "docs/deploy.md", "docs/migration.md",
		"docs/configmap-namespace.md", "docs/image.md", "docs/troubleshooting.md"} {
		text, err := os.ReadFile(filepath.Join("..", "..", page))
		if err != nil {
			t.Fatal(err)
		}
		if tag := pinned.Find(text); tag != nil {
			t.Errorf("%s names the image tag %q: name it $(hack/version.sh), or build with IMAGE_REPO=...", page, tag)
		}
	}
}
