package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// krewManifestName is the file `kubectl krew install --manifest` reads.
const krewManifestName = "nodeslo.yaml"

// The types below are the part of krew's index.Plugin (apiVersion
// krew.googlecontainertools.github.com/v1alpha2) the manifest uses. They are
// written out rather than imported: sigs.k8s.io/krew requires
// k8s.io/client-go v11.0.0+incompatible, which the module graph would select
// over this project's client-go. Krew itself validates the manifest when
// test/release installs the plugin with it.
type krewPlugin struct {
	APIVersion string         `json:"apiVersion"`
	Kind       string         `json:"kind"`
	Metadata   krewMetadata   `json:"metadata"`
	Spec       krewPluginSpec `json:"spec"`
}

type krewMetadata struct {
	Name string `json:"name"`
}

type krewPluginSpec struct {
	Version          string         `json:"version"`
	Homepage         string         `json:"homepage"`
	ShortDescription string         `json:"shortDescription"`
	Description      string         `json:"description"`
	Caveats          string         `json:"caveats,omitempty"`
	Platforms        []krewPlatform `json:"platforms"`
}

type krewPlatform struct {
	Selector krewSelector `json:"selector"`
	URI      string       `json:"uri"`
	SHA256   string       `json:"sha256"`
	// Files are what krew copies out of the archive: the binary, the
	// completer and the licence (krew's plugin-naming guide asks for it).
	// krew links only Bin onto the PATH (kubernetes-sigs/krew#812): the
	// caveats say how to link the completer.
	Files []krewFile `json:"files"`
	Bin   string     `json:"bin"`
}

type krewFile struct {
	From string `json:"from"`
	To   string `json:"to"`
}

type krewSelector struct {
	MatchLabels map[string]string `json:"matchLabels"`
}

// writeKrewManifest writes the krew manifest of the plugin archives of
// version found in dir, each to be downloaded from urlBase/<archive>.
func writeKrewManifest(dir, version, urlBase string) (string, error) {
	archives, err := pluginArchives(dir, version)
	if err != nil {
		return "", err
	}
	if len(archives) == 0 {
		return "", fmt.Errorf("no plugin archive of %s in %s", version, dir)
	}
	plugin := krewPlugin{
		APIVersion: "krew.googlecontainertools.github.com/v1alpha2",
		Kind:       "Plugin",
		Metadata:   krewMetadata{Name: "nodeslo"},
		Spec: krewPluginSpec{
			Version:          version,
			Homepage:         "https://github.com/nodeslo/nodeslo-controller",
			ShortDescription: "Validate, render and explain Koordinator NodeSLOs",
			Description: "Checks Koordinator's slo-controller-config ConfigMap and shows the NodeSLO " +
				"every node would get, offline; explains, live, where a node's NodeSLO comes from, " +
				"which NodeSLOs a ConfigMap change would modify, and how far a staged rollout has reached.",
			Caveats: "kubectl completes `kubectl nodeslo` through kubectl_complete-nodeslo, installed beside the " +
				"plugin; krew does not put it on the PATH. To have completion, link it there once:\n" +
				"  ln -sf \"$(dirname \"$(readlink -f \"$(command -v kubectl-nodeslo)\")\")/kubectl_complete-nodeslo\" " +
				"\"${KREW_ROOT:-$HOME/.krew}/bin/\"\n",
		},
	}
	for _, a := range archives {
		sum, err := fileSHA256(filepath.Join(dir, a.name))
		if err != nil {
			return "", err
		}
		plugin.Spec.Platforms = append(plugin.Spec.Platforms, krewPlatform{
			Selector: krewSelector{MatchLabels: map[string]string{"os": a.platform.os, "arch": a.platform.arch}},
			URI:      strings.TrimSuffix(urlBase, "/") + "/" + a.name,
			SHA256:   sum,
			Files: []krewFile{
				{From: a.platform.binaryName(), To: "."},
				{From: a.platform.completerName(), To: "."},
				{From: licenseName, To: "."},
			},
			Bin: a.platform.binaryName(),
		})
	}
	data, err := yaml.Marshal(plugin)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, krewManifestName)
	return path, os.WriteFile(path, data, 0o644)
}

// pluginArchive is one archive written by writeArchive.
type pluginArchive struct {
	name     string
	platform platform
}

// pluginArchives lists the plugin archives of version in dir, sorted by name.
func pluginArchives(dir, version string) ([]pluginArchive, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	pattern := regexp.MustCompile(`^` + regexp.QuoteMeta(pluginName+"_"+version+"_") +
		`([a-z0-9]+)_([a-z0-9]+)\.(?:tar\.gz|zip)$`)
	var archives []pluginArchive
	for _, e := range entries {
		m := pattern.FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			continue
		}
		p := platform{os: m[1], arch: m[2]}
		if e.Name() != archiveName(version, p) {
			return nil, fmt.Errorf("%s: not the archive format of %s/%s", e.Name(), p.os, p.arch)
		}
		archives = append(archives, pluginArchive{name: e.Name(), platform: p})
	}
	slices.SortFunc(archives, func(a, b pluginArchive) int { return strings.Compare(a.name, b.name) })
	return archives, nil
}
