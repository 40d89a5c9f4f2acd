package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Koordinator's CRDs are installed but for the one named as one of this
// project's (NodeSLO's): both sides write through this project's.
func TestKoordinatorCRDFiles(t *testing.T) {
	own, theirs := t.TempDir(), t.TempDir()
	write := func(dir string, names ...string) {
		for _, name := range names {
			if err := os.WriteFile(filepath.Join(dir, name), []byte("kind: CustomResourceDefinition\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(own, "slo.koordinator.sh_nodeslos.yaml", "nodeslo.koordinator.sh_nodeslorollouts.yaml")
	write(theirs, "slo.koordinator.sh_nodeslos.yaml", "slo.koordinator.sh_nodemetrics.yaml",
		"scheduling.sigs.k8s.io_elasticquotas.yaml", "README.md")
	got, err := koordinatorCRDFiles(theirs, own)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(theirs, "scheduling.sigs.k8s.io_elasticquotas.yaml"),
		filepath.Join(theirs, "slo.koordinator.sh_nodemetrics.yaml")}
	if !slices.Equal(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
	if _, err := koordinatorCRDFiles(own, own); err == nil {
		t.Error("no error for a directory with none of Koordinator's own CRDs")
	}
	if _, err := koordinatorCRDFiles(filepath.Join(theirs, "missing"), own); err == nil {
		t.Error("no error for a missing directory")
	}
}
