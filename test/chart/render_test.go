package chart

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// The release the chart is rendered as: the names and namespace of
// dist/install.yaml.
const (
	releaseName      = "nodeslo"
	releaseNamespace = "koordinator-system"
)

// root is the repository, from this package's directory.
var root = filepath.Join("..", "..")

// tool returns bin/<name>, which the Makefile installs before `make test`.
func tool(t *testing.T, name string) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join(root, "bin", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s is missing: run `make %s` (make test installs it first)", path, name)
	}
	return path
}

// run runs a command in the repository and returns its stdout.
func run(t *testing.T, binary string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = root
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(binary), strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

// helmTemplate renders dist/chart as release nodeslo in koordinator-system
// with the given --set values.
func helmTemplate(t *testing.T, set ...string) []*unstructured.Unstructured {
	t.Helper()
	return helmTemplateIn(t, releaseNamespace, set...)
}

// helmTemplateIn renders the chart as release nodeslo in namespace.
func helmTemplateIn(t *testing.T, namespace string, set ...string) []*unstructured.Unstructured {
	t.Helper()
	return decode(t, run(t, tool(t, "helm"), templateArgs(namespace, set)...))
}

// kustomizeBuild builds config/crd, config/default and config/rollout as
// `make deploy` applies them (the first two are `make build-installer`'s
// dist/crds.yaml and dist/install.yaml), after uncommenting the given optional parts (e.g.
// "../prometheus") in a copy of config/, as the README tells users to.
func kustomizeBuild(t *testing.T, optional ...string) []*unstructured.Unstructured {
	t.Helper()
	dir := filepath.Join(root, "config")
	if len(optional) > 0 {
		dir = filepath.Join(t.TempDir(), "config")
		if err := os.CopyFS(dir, os.DirFS(filepath.Join(root, "config"))); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "default", "kustomization.yaml")
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(raw)
		for _, part := range optional {
			commented := "#- " + part + "\n"
			if !strings.Contains(text, commented) {
				t.Fatalf("config/default/kustomization.yaml has no line %q to uncomment", strings.TrimSpace(commented))
			}
			text = strings.Replace(text, commented, "- "+part+"\n", 1)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	parts := []string{"crd", "default", "rollout"}
	objs := make([]*unstructured.Unstructured, 0, len(parts))
	for _, part := range parts {
		path, err := filepath.Abs(filepath.Join(dir, part))
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, decode(t, run(t, tool(t, "kustomize"), "build", path))...)
	}
	return objs
}

// decode reads every object of a multi-document YAML stream.
func decode(t *testing.T, stream []byte) []*unstructured.Unstructured {
	t.Helper()
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(stream), 4096)
	var objs []*unstructured.Unstructured
	for {
		obj := &unstructured.Unstructured{}
		err := dec.Decode(&obj.Object)
		if errors.Is(err, io.EOF) {
			return objs
		}
		if err != nil {
			t.Fatalf("decoding rendered manifests: %v", err)
		}
		if len(obj.Object) > 0 {
			objs = append(objs, obj)
		}
	}
}

// objectKey names an object as kind/namespace/name (cluster-scoped: kind/name).
func objectKey(obj *unstructured.Unstructured) string {
	if obj.GetNamespace() == "" {
		return obj.GetKind() + "/" + obj.GetName()
	}
	return fmt.Sprintf("%s/%s/%s", obj.GetKind(), obj.GetNamespace(), obj.GetName())
}

// byKey indexes objects by objectKey, failing on a duplicate.
func byKey(t *testing.T, source string, objs []*unstructured.Unstructured) map[string]*unstructured.Unstructured {
	t.Helper()
	out := make(map[string]*unstructured.Unstructured, len(objs))
	for _, obj := range objs {
		key := objectKey(obj)
		if _, dup := out[key]; dup {
			t.Fatalf("%s renders %s twice", source, key)
		}
		out[key] = obj
	}
	return out
}

// helmTemplateError renders the chart expecting a failure; it returns the
// combined output and the error.
func helmTemplateError(t *testing.T, set ...string) (string, error) {
	t.Helper()
	return helmCombinedOutput(t, templateArgs(releaseNamespace, set)...)
}

// helmCombinedOutput runs bin/helm with args in the repository and returns
// its combined output and error.
func helmCombinedOutput(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(tool(t, "helm"), args...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// exampleImage names an image, which the chart requires (no default is
// published); a test's own --set of it comes later and wins.
const exampleImage = "manager.image.repository=registry.example.com/nodeslo-controller"

// oldestKubernetes is the chart's kubeVersion floor: helm template renders
// for v1.20 unless told, which the chart refuses.
const oldestKubernetes = "1.30.0"

// templateArgs are helm's arguments to render the chart in namespace, for
// the oldest Kubernetes it supports, with exampleImage and the --set values.
func templateArgs(namespace string, set []string) []string {
	args := make([]string, 0, 10+2*len(set))
	// Without the test hooks: `helm install` creates none of them, and the
	// tests compare what it creates (TestHelmTestAsksTheManagersReadiness
	// renders them).
	args = append(args, "template", releaseName, "dist/chart", "--namespace", namespace,
		"--kube-version", oldestKubernetes, "--skip-tests", "--set", exampleImage)
	for _, s := range set {
		args = append(args, "--set", s)
	}
	return args
}
