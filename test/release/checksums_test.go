//go:build release

package release

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"slices"
	"strings"
	"testing"
)

// Every file of the release is in checksums.txt with the SHA-256 of its
// bytes, in sha256sum's format, the plugin archives of every platform
// included.
func TestChecksumsMatchEveryReleaseFile(t *testing.T) {
	r := releaseUnderTest(t)
	data, err := os.ReadFile(r.path("checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{}
	for line := range strings.SplitSeq(strings.TrimSuffix(string(data), "\n"), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok || len(sum) != sha256.Size*2 {
			t.Fatalf("checksums.txt: %q is not `<sha256>  <file>`", line)
		}
		listed[name] = sum
	}

	entries, err := os.ReadDir(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		if e.Name() != "checksums.txt" {
			files = append(files, e.Name())
		}
	}
	built := builtPlatforms(t)
	want := make([]string, 0, 4+len(built))
	want = append(want, r.chartPackage(), "crds.yaml", "install.yaml", "nodeslo.yaml")
	for _, p := range built {
		want = append(want, r.pluginArchive(p.os, p.arch, p.ext))
	}
	slices.Sort(want)
	if !slices.Equal(files, want) {
		t.Errorf("release files = %v, want %v", files, want)
	}

	for _, name := range files {
		content, err := os.ReadFile(r.path(name))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(content)
		switch got, ok := listed[name]; {
		case !ok:
			t.Errorf("%s is not in checksums.txt", name)
		case got != hex.EncodeToString(sum[:]):
			t.Errorf("%s: checksums.txt says %s, the file's SHA-256 is %x", name, got, sum)
		}
		delete(listed, name)
	}
	for name := range listed {
		t.Errorf("checksums.txt names %s, which is not in the release", name)
	}
}
