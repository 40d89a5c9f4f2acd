package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// pluginName is the binary kubectl finds on the PATH for `kubectl nodeslo`.
const pluginName = "kubectl-nodeslo"

// completerName is the executable kubectl runs to complete `kubectl
// nodeslo ...` (docs/kubectl-nodeslo.md#completion), archived beside the plugin.
const completerName = "kubectl_complete-nodeslo"

// windowsOS is the GOOS whose binaries end in .exe and are archived as zip.
const windowsOS = "windows"

// platform is one GOOS/GOARCH the plugin is released for.
type platform struct{ os, arch string }

// binaryName is the plugin's file name on the platform.
func (p platform) binaryName() string { return p.executable(pluginName) }

// completerName is the completer's file name on the platform.
func (p platform) completerName() string { return p.executable(completerName) }

func (p platform) executable(name string) string {
	if p.os == windowsOS {
		return name + ".exe"
	}
	return name
}

// archiveName is the archive's file name: zip on Windows, where it is the
// native format, tar.gz elsewhere; krew installs both.
func archiveName(version string, p platform) string {
	ext := ".tar.gz"
	if p.os == windowsOS {
		ext = ".zip"
	}
	return fmt.Sprintf("%s_%s_%s_%s%s", pluginName, version, p.os, p.arch, ext)
}

// archiveTime is the modification time of every archived file, so that an
// archive depends only on the binary's bytes.
var archiveTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// licenseName is the licence's file name in every archive, beside the
// binary: the Apache License 2.0 must travel with the program (its section
// 4(a)), and krew's submission rules ask for it in the archive.
const licenseName = "LICENSE"

// archiveEntry is one file of an archive.
type archiveEntry struct {
	name    string
	mode    int64
	content []byte
}

// writeArchive packs binary, the completer and the licence file license
// into dir as the platform's archive and returns its path.
func writeArchive(dir, version string, p platform, binary, completer, license string) (string, error) {
	content, err := os.ReadFile(binary)
	if err != nil {
		return "", err
	}
	completerContent, err := os.ReadFile(completer)
	if err != nil {
		return "", err
	}
	licenseText, err := os.ReadFile(license)
	if err != nil {
		return "", err
	}
	entries := []archiveEntry{
		{name: p.binaryName(), mode: 0o755, content: content},
		{name: p.completerName(), mode: 0o755, content: completerContent},
		{name: licenseName, mode: 0o644, content: licenseText},
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, archiveName(version, p))
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	if p.os == windowsOS {
		err = writeZip(f, entries)
	} else {
		err = writeTarGz(f, entries)
	}
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	return path, nil
}

func writeTarGz(w io.Writer, entries []archiveEntry) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		if err := tw.WriteHeader(&tar.Header{
			Typeflag: tar.TypeReg,
			Name:     e.name,
			Mode:     e.mode,
			Size:     int64(len(e.content)),
			ModTime:  archiveTime,
			Format:   tar.FormatPAX,
		}); err != nil {
			return err
		}
		if _, err := tw.Write(e.content); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func writeZip(w io.Writer, entries []archiveEntry) error {
	zw := zip.NewWriter(w)
	for _, e := range entries {
		header := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: archiveTime}
		header.SetMode(os.FileMode(e.mode))
		fw, err := zw.CreateHeader(header)
		if err != nil {
			return err
		}
		if _, err := fw.Write(e.content); err != nil {
			return err
		}
	}
	return zw.Close()
}
