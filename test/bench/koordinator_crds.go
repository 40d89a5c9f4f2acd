package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// koordinatorCRDFiles lists the CRD manifests of Koordinator's dir
// (config/crd/bases of its module) to install beside this project's, in
// ownDir: koord-manager's caches need some of them even with its NodeSLO
// controller alone (its field indexes are on ElasticQuotas, for one). A
// file named as one of ownDir's, NodeSLO's, is left out: both sides then
// write through the same NodeSLO CRD, this project's, wire-compatible
// with Koordinator's.
func koordinatorCRDFiles(dir, ownDir string) ([]string, error) {
	own, err := yamlFiles(ownDir)
	if err != nil {
		return nil, err
	}
	theirs, err := yamlFiles(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, name := range theirs {
		if !slices.Contains(own, name) {
			out = append(out, filepath.Join(dir, name))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no CRD of Koordinator's in %s beside this project's", dir)
	}
	return out, nil
}

// yamlFiles names the YAML files of dir, sorted.
func yamlFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading the CRDs of %s: %w", dir, err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && (strings.HasSuffix(e.Name(), ".yaml") || strings.HasSuffix(e.Name(), ".yml")) {
			names = append(names, e.Name())
		}
	}
	return names, nil
}
