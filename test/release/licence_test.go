//go:build release

package release

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// Every plugin archive and the chart package carry the repository's
// LICENSE (the Apache License 2.0), byte for byte: the licence must travel
// with each copy of the program, and krew's submission rules ask for it in
// the plugin archive.
func TestEveryReleaseArchiveCarriesTheLicence(t *testing.T) {
	r := releaseUnderTest(t)
	want, err := os.ReadFile("../../LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range builtPlatforms(t) {
		name := r.pluginArchive(p.os, p.arch, p.ext)
		var files map[string][]byte
		if p.ext == tarGz {
			files = tarGzFiles(t, r.path(name))
		} else {
			files = zipFiles(t, r.path(name))
		}
		if got, ok := files["LICENSE"]; !ok || !bytes.Equal(got, want) {
			t.Errorf("%s: LICENSE missing or not the repository's (archived: %v)", name, ok)
		}
	}
	files := tarGzFiles(t, r.path(r.chartPackage()))
	if got, ok := files["nodeslo-controller/LICENSE"]; !ok || !bytes.Equal(got, want) {
		t.Errorf("%s: nodeslo-controller/LICENSE missing or not the repository's (archived: %v)", r.chartPackage(), ok)
	}
}

// tarGzFiles reads the regular files of a .tar.gz by name.
func tarGzFiles(t *testing.T, path string) map[string][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
	files := map[string][]byte{}
	tr := tar.NewReader(gz)
	for {
		header, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files
		}
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(path), err)
		}
		if header.Typeflag == tar.TypeReg {
			if files[header.Name], err = io.ReadAll(tr); err != nil {
				t.Fatalf("%s: %s: %v", filepath.Base(path), header.Name, err)
			}
		}
	}
}

// zipFiles reads the files of a .zip by name.
func zipFiles(t *testing.T, path string) map[string][]byte {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = zr.Close() }()
	files := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatalf("%s: %s: %v", filepath.Base(path), f.Name, err)
		}
		files[f.Name], err = io.ReadAll(rc)
		_ = rc.Close()
		if err != nil {
			t.Fatalf("%s: %s: %v", filepath.Base(path), f.Name, err)
		}
	}
	return files
}
