package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

const testVersion = "v1.2.3"

var (
	linuxAMD64   = platform{"linux", "amd64"}
	linuxARM64   = platform{"linux", "arm64"}
	windowsAMD64 = platform{windowsOS, "amd64"}
)

// writeLicense writes a stand-in licence file and returns its path.
func writeLicense(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), licenseName)
	if err := os.WriteFile(path, []byte(testLicense), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const testLicense = "Apache License\nVersion 2.0, January 2004\n"

// writeCompleter writes a fake completer binary and returns its path.
func writeCompleter(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), completerName)
	if err := os.WriteFile(path, []byte("completer"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeBinary writes a fake plugin binary and returns its path.
func writeBinary(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubectl-nodeslo")
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTarGzArchiveHoldsThePluginItsCompleterAndTheLicenceAndIsReproducible(t *testing.T) {
	binary, license := writeBinary(t, "linux binary"), writeLicense(t)
	first, err := writeArchive(t.TempDir(), testVersion, linuxARM64, binary, writeCompleter(t), license)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(first) != "kubectl-nodeslo_v1.2.3_linux_arm64.tar.gz" {
		t.Errorf("archive name %s", filepath.Base(first))
	}
	second, err := writeArchive(t.TempDir(), testVersion, linuxARM64, binary, writeCompleter(t), license)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(first)
	b, _ := os.ReadFile(second)
	if !bytes.Equal(a, b) {
		t.Error("two archives of the same binary differ")
	}

	gz, err := gzip.NewReader(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	header, err := tr.Next()
	if err != nil {
		t.Fatal(err)
	}
	content, _ := io.ReadAll(tr)
	if header.Name != "kubectl-nodeslo" || header.Mode != 0o755 || string(content) != "linux binary" {
		t.Errorf("entry %s mode %o content %q", header.Name, header.Mode, content)
	}
	header, err = tr.Next()
	if err != nil {
		t.Fatalf("no second entry, the completer: %v", err)
	}
	content, _ = io.ReadAll(tr)
	if header.Name != completerName || header.Mode != 0o755 || string(content) != "completer" {
		t.Errorf("entry %s mode %o content %q, want the completer", header.Name, header.Mode, content)
	}
	header, err = tr.Next()
	if err != nil {
		t.Fatalf("no third entry, the licence: %v", err)
	}
	content, _ = io.ReadAll(tr)
	if header.Name != licenseName || header.Mode != 0o644 || string(content) != testLicense {
		t.Errorf("entry %s mode %o content %q, want the licence", header.Name, header.Mode, content)
	}
	if _, err := tr.Next(); err != io.EOF {
		t.Errorf("a fourth entry, or %v", err)
	}
}

func TestWindowsArchiveIsAZipOfTheExesAndTheLicence(t *testing.T) {
	path, err := writeArchive(t.TempDir(), testVersion, windowsAMD64, writeBinary(t, "MZ"), writeCompleter(t),
		writeLicense(t))
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != "kubectl-nodeslo_v1.2.3_windows_amd64.zip" {
		t.Errorf("archive name %s", filepath.Base(path))
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = zr.Close() }()
	if len(zr.File) != 3 || zr.File[0].Name != "kubectl-nodeslo.exe" ||
		zr.File[1].Name != "kubectl_complete-nodeslo.exe" || zr.File[2].Name != "LICENSE" {
		t.Fatalf("zip entries %v, want kubectl-nodeslo.exe, kubectl_complete-nodeslo.exe and LICENSE", zr.File)
	}
	for i, want := range []string{"MZ", "completer", testLicense} {
		rc, _ := zr.File[i].Open()
		content, _ := io.ReadAll(rc)
		if string(content) != want {
			t.Errorf("%s: content %q, want %q", zr.File[i].Name, content, want)
		}
	}
}

func TestKrewManifestNamesEveryArchiveWithItsChecksum(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []platform{linuxAMD64, windowsAMD64} {
		if _, err := writeArchive(dir, testVersion, p, writeBinary(t, p.os), writeCompleter(t), writeLicense(t)); err != nil {
			t.Fatal(err)
		}
	}
	// An archive of another version is not this release's.
	old := writeBinary(t, "old")
	if _, err := writeArchive(dir, "v1.2.2", linuxAMD64, old, writeCompleter(t), writeLicense(t)); err != nil {
		t.Fatal(err)
	}
	path, err := writeKrewManifest(dir, testVersion, "https://example.com/download/v1.2.3/")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	var manifest krewPlugin
	if err := yaml.UnmarshalStrict(data, &manifest); err != nil {
		t.Fatal(err)
	}
	if manifest.Metadata.Name != "nodeslo" || manifest.Spec.Version != testVersion || len(manifest.Spec.Platforms) != 2 {
		t.Fatalf("manifest:\n%s", data)
	}
	for _, p := range manifest.Spec.Platforms {
		name := filepath.Base(p.URI)
		sum, err := fileSHA256(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if p.SHA256 != sum || p.URI != "https://example.com/download/v1.2.3/"+name {
			t.Errorf("platform %+v, archive's SHA-256 %s", p, sum)
		}
		wantBin := "kubectl-nodeslo"
		if p.Selector.MatchLabels["os"] == windowsOS {
			wantBin += ".exe"
		}
		labels := p.Selector.MatchLabels
		if p.Bin != wantBin || !strings.Contains(name, "_"+labels["os"]+"_"+labels["arch"]+".") {
			t.Errorf("platform %+v for %s", p, name)
		}
		wantFiles := []krewFile{{From: wantBin, To: "."},
			{From: strings.Replace(wantBin, pluginName, completerName, 1), To: "."}, {From: licenseName, To: "."}}
		if !slices.Equal(p.Files, wantFiles) {
			t.Errorf("platform %s/%s: files %v, want %v (krew installs the licence with the binary)",
				labels["os"], labels["arch"], p.Files, wantFiles)
		}
	}
}

func TestChecksumsListEveryOtherFileInSha256sumFormat(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"b.tgz": "chart", "a.yaml": "manifest"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := writeChecksums(dir); err != nil {
		t.Fatal(err)
	}
	// Written again, checksums.txt does not list itself.
	path, err := writeChecksums(dir)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	// As sha256sum prints them: printf manifest | sha256sum, printf chart | sha256sum.
	want := "05b3abf2579a5eb66403cd78be557fd860633a1fe2103c7642030defe32c657f  a.yaml\n" +
		"cc57fc1903e444cf6a726490b43b27ee9f87facc037f86872201847c565b45fb  b.tgz\n"
	if string(data) != want {
		t.Errorf("checksums.txt:\n%s\nwant:\n%s", data, want)
	}
}
