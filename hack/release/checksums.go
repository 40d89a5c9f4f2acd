package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// checksumsName is the file of SHA-256 checksums of a release.
const checksumsName = "checksums.txt"

// writeChecksums writes checksums.txt with the SHA-256 of every other
// regular file of dir, by name, as sha256sum prints them ("<hex>  <name>").
func writeChecksums(dir string) (string, error) {
	entries, err := os.ReadDir(dir) // sorted by name
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, e := range entries {
		if !e.Type().IsRegular() || e.Name() == checksumsName {
			continue
		}
		sum, err := fileSHA256(filepath.Join(dir, e.Name()))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, e.Name())
	}
	if b.Len() == 0 {
		return "", fmt.Errorf("no file to checksum in %s", dir)
	}
	path := filepath.Join(dir, checksumsName)
	return path, os.WriteFile(path, []byte(b.String()), 0o644)
}

// fileSHA256 is the hex SHA-256 of the file at path.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
