//go:build release

package release

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tarGz is the archive format of every platform but Windows.
const tarGz = ".tar.gz"

// platform is one GOOS/GOARCH the plugin is released for, with the
// extension of its archive.
type platform struct{ os, arch, ext string }

// releasePlatforms are the platforms the plugin is released for, as in the
// Makefile's default RELEASE_PLATFORMS; an archive missing or added must be
// noticed.
var releasePlatforms = []platform{
	{"darwin", "amd64", tarGz},
	{"darwin", "arm64", tarGz},
	{"linux", "amd64", tarGz},
	{"linux", "arm64", tarGz},
	{"windows", "amd64", ".zip"},
}

// builtPlatforms are the platforms of the release under test: all of
// releasePlatforms, or the subset RELEASE_PLATFORMS names (CI builds this
// host's only, so that a cold run compiles one platform instead of five;
// docs/testing.md, "Continuous integration").
func builtPlatforms(t *testing.T) []platform {
	t.Helper()
	named := strings.Fields(os.Getenv("RELEASE_PLATFORMS"))
	if len(named) == 0 {
		t.Fatal("RELEASE_PLATFORMS is unset: run `make test-release`")
	}
	var out []platform
	for _, n := range named {
		i := slices.IndexFunc(releasePlatforms, func(p platform) bool { return p.os+"/"+p.arch == n })
		if i < 0 {
			t.Fatalf("RELEASE_PLATFORMS names %s, which is not a platform the plugin is released for", n)
		}
		out = append(out, releasePlatforms[i])
	}
	return out
}

// release is the release under test, from the environment make passes.
type release struct {
	dir, version, image string
}

func releaseUnderTest(t *testing.T) release {
	t.Helper()
	r := release{dir: os.Getenv("RELEASE_DIR"), version: os.Getenv("RELEASE_VERSION"), image: os.Getenv("RELEASE_IMAGE")}
	if r.dir == "" || r.version == "" || r.image == "" {
		t.Fatal("RELEASE_DIR, RELEASE_VERSION and RELEASE_IMAGE are unset: run `make test-release VERSION=vX.Y.Z`")
	}
	return r
}

func (r release) path(name string) string { return filepath.Join(r.dir, name) }

// pluginArchive is the file name of the plugin's archive for one platform.
func (r release) pluginArchive(goos, goarch, ext string) string {
	return "kubectl-nodeslo_" + r.version + "_" + goos + "_" + goarch + ext
}

// chartPackage is the file name helm package gives the chart.
func (r release) chartPackage() string { return "nodeslo-controller-" + r.version + ".tgz" }

// tool returns the binary named by an environment variable.
func tool(t *testing.T, variable string) string {
	t.Helper()
	binary := os.Getenv(variable)
	if binary == "" {
		t.Fatalf("%s is unset: run `make test-release`", variable)
	}
	return binary
}

// runCommand runs binary with args and env added to the environment, fails
// the test when it fails, and returns its standard output.
func runCommand(t *testing.T, env []string, binary string, args ...string) string {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", filepath.Base(binary), strings.Join(args, " "), err,
			stdout.String(), stderr.String())
	}
	t.Logf("$ %s %s\n%s", filepath.Base(binary), strings.Join(args, " "), clip(stdout.String()))
	return stdout.String()
}

// clip keeps logs of rendered manifests short.
func clip(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "...\n"
	}
	return s
}

// The Makefile's default RELEASE_PLATFORMS, what `make release` builds,
// is every platform of releasePlatforms: CI builds fewer, so this is where
// a platform dropped from the release is noticed.
func TestMakefileReleasesEveryPlatform(t *testing.T) {
	makefile, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	var defaults []string
	for line := range strings.Lines(string(makefile)) {
		if rest, ok := strings.CutPrefix(line, "RELEASE_PLATFORMS ?="); ok {
			defaults = strings.Fields(rest)
		}
	}
	want := make([]string, 0, len(releasePlatforms))
	for _, p := range releasePlatforms {
		want = append(want, p.os+"/"+p.arch)
	}
	slices.Sort(defaults)
	if !slices.Equal(defaults, want) {
		t.Errorf("the Makefile's RELEASE_PLATFORMS = %v, want %v", defaults, want)
	}
}
