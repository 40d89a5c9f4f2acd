package localcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// FieldOwner is the server-side-apply manager of what the local tools apply.
const FieldOwner = "nodeslo-local"

// kustomization is the part of a kustomization.yaml that ApplyKustomization reads.
type kustomization struct {
	Resources []string `json:"resources"`
}

// ApplyKustomization applies, server-side and in the listed order, the plain
// resource files of dir/kustomization.yaml (config/samples lists only files,
// so a kustomize binary is not needed for it). It returns what it applied.
func ApplyKustomization(ctx context.Context, c client.Client, dir string) ([]*unstructured.Unstructured, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		return nil, fmt.Errorf("reading the kustomization: %w", err)
	}
	var k kustomization
	if err := yaml.Unmarshal(raw, &k); err != nil {
		return nil, fmt.Errorf("parsing %s/kustomization.yaml: %w", dir, err)
	}
	var applied []*unstructured.Unstructured
	for _, file := range k.Resources {
		objs, err := readObjects(filepath.Join(dir, file))
		if err != nil {
			return applied, err
		}
		for _, obj := range objs {
			if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj),
				client.FieldOwner(FieldOwner), client.ForceOwnership); err != nil {
				return applied, fmt.Errorf("applying %s %s from %s: %w", obj.GetKind(), obj.GetName(), file, err)
			}
			applied = append(applied, obj)
		}
	}
	return applied, nil
}

// readObjects decodes every document of a multi-document YAML file.
func readObjects(path string) ([]*unstructured.Unstructured, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	objs, err := DecodeObjects(raw)
	if err != nil {
		return nil, fmt.Errorf("decoding %s: %w", path, err)
	}
	return objs, nil
}

// DecodeObjects decodes every object of a multi-document YAML (or JSON)
// stream, such as kustomize build or helm template prints; empty documents
// are skipped.
func DecodeObjects(stream []byte) ([]*unstructured.Unstructured, error) {
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(stream), 4096)
	var objs []*unstructured.Unstructured
	for {
		obj := &unstructured.Unstructured{}
		if err := decoder.Decode(&obj.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return objs, nil
			}
			return nil, err
		}
		if len(obj.Object) > 0 {
			objs = append(objs, obj)
		}
	}
}
