package nodecluster

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// LoadImage copies image from a local container tool's storage (podman, or
// docker) into the node's containerd, where the kubelet finds it without a
// registry: `<tool> save image` piped to `ctr images import -`, then tagged
// with the name the kubelet asks containerd for (NormalizeImage: a manifest's
// "nodeslo-controller:dev" is docker.io/library/nodeslo-controller:dev to the
// CRI), so that a Pod with imagePullPolicy IfNotPresent or Never runs it. It
// returns that name.
func (c *Cluster) LoadImage(ctx context.Context, tool, image string) (string, error) {
	save := exec.CommandContext(ctx, tool, "save", image)
	var saveErr bytes.Buffer
	save.Stderr = &saveErr
	stdout, err := save.StdoutPipe()
	if err != nil {
		return "", err
	}
	importCmd := exec.CommandContext(ctx, "ctr", "--address", c.layout.ContainerdSocket(),
		"--namespace", criNamespace, "images", "import", "--all-platforms", "-")
	importCmd.Stdin = stdout
	var importOut bytes.Buffer
	importCmd.Stdout, importCmd.Stderr = &importOut, &importOut
	if err := save.Start(); err != nil {
		return "", fmt.Errorf("%s save %s: %w", tool, image, err)
	}
	importErr := importCmd.Run()
	if err := save.Wait(); err != nil {
		return "", fmt.Errorf("%s save %s: %w: %s", tool, image, err, saveErr.String())
	}
	if importErr != nil {
		return "", fmt.Errorf("ctr images import: %w: %s", importErr, importOut.String())
	}
	// What the archive named it: ctr prints "unpacking <name> (<digest>)...".
	imported := ""
	for line := range strings.SplitSeq(importOut.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "unpacking "); ok {
			imported, _, _ = strings.Cut(rest, " ")
		}
	}
	if imported == "" {
		return "", fmt.Errorf("ctr images import named no image: %s", importOut.String())
	}
	name := NormalizeImage(image)
	if imported != name {
		if out, err := c.ctr(ctx, "images", "tag", "--force", imported, name); err != nil {
			return "", fmt.Errorf("ctr images tag %s %s: %w: %s", imported, name, err, out)
		}
	}
	c.opts.Logf("image %s loaded into containerd as %s (archive's name %s)", image, name, imported)
	return name, nil
}

// localRegistry is the one registry host without a dot or a port.
const localRegistry = "localhost"

// SplitImage splits an image reference without a digest into its
// repository and tag (empty when it has none); a registry's port is part of
// the repository.
func SplitImage(ref string) (repository, tag string) {
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		return ref[:i], ref[i+1:]
	}
	return ref, ""
}

// NormalizeImage is the full name the CRI gives an image reference: a
// reference without a registry host is on docker.io, and a one-part
// repository there is under library/; without a tag or digest it is
// :latest.
func NormalizeImage(ref string) string {
	name, rest := ref, ""
	if i := strings.IndexAny(ref, "@"); i >= 0 {
		name, rest = ref[:i], ref[i:]
	} else if repository, tag := SplitImage(ref); tag != "" {
		name, rest = repository, ":"+tag
	}
	if rest == "" {
		rest = ":latest"
	}
	first, _, hasSlash := strings.Cut(name, "/")
	if !hasSlash || (!strings.ContainsAny(first, ".:") && first != localRegistry) {
		if !hasSlash {
			name = "library/" + name
		}
		name = "docker.io/" + name
	}
	return name + rest
}
