package plugin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// typeHeader is enough of any object to dispatch on its kind.
// Items stay undecoded until their kind is known.
type typeHeader struct {
	Kind  string            `json:"kind"`
	Items []json.RawMessage `json:"items"`
}

// documents splits a YAML or JSON stream into its documents (as JSON).
func documents(r io.Reader) ([][]byte, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(r, 4096)
	var docs [][]byte
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if len(raw) > 0 && string(raw) != "null" {
			docs = append(docs, raw)
		}
	}
}

// ConfigMapRef is the namespace and name of the ConfigMap to read.
type ConfigMapRef struct{ Namespace, Name string }

func (r ConfigMapRef) String() string { return r.Namespace + "/" + r.Name }

// ConfigMapInput is the ConfigMap picked from a file.
type ConfigMapInput struct {
	Ref        ConfigMapRef // as written in the file; Namespace may be empty
	Data       map[string]string
	BinaryData map[string][]byte
	// Warnings are about the choice: a ConfigMap other than the one the
	// controller reads.
	Warnings []string
}

// configMapObject is the part of a ConfigMap the plugin reads. The values
// stay raw so that one that is not a string is named, not reported as a
// Go type error.
type configMapObject struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Data       map[string]json.RawMessage `json:"data"`
	BinaryData map[string]json.RawMessage `json:"binaryData"`
}

func (o *configMapObject) ref() ConfigMapRef {
	return ConfigMapRef{Namespace: o.Metadata.Namespace, Name: o.Metadata.Name}
}

// ReadConfigMap returns the ConfigMap want of r, which holds YAML or JSON
// documents: ConfigMaps, Lists of them (`kubectl get cm -o yaml`) and other
// objects, which are skipped (an install manifest). It picks, in order: the
// ConfigMap named want.Name in want.Namespace; the one named want.Name
// without a namespace (a manifest applied with -n); the only one named
// want.Name; the only ConfigMap of the file. The last two come with a
// warning, and when a step finds several the choice is refused, naming them.
func ReadConfigMap(r io.Reader, want ConfigMapRef) (*ConfigMapInput, error) {
	file, err := io.ReadAll(newCheckedReader(r, "the ConfigMap file", MaxConfigMapFileBytes))
	if err != nil {
		return nil, fmt.Errorf("reading the ConfigMap: %w", err)
	}
	docs, err := documents(bytes.NewReader(file))
	if err != nil {
		return nil, fmt.Errorf("reading the ConfigMap: %w", err)
	}
	var found []*configMapObject
	for i, doc := range docs {
		var head typeHeader
		if err := json.Unmarshal(doc, &head); err != nil {
			return nil, fmt.Errorf("reading the ConfigMap file, document %d: %w", i+1, err)
		}
		items := []json.RawMessage{doc}
		if head.Kind == kindList || head.Kind == kindConfigMapList {
			items = head.Items
		}
		for _, item := range items {
			var cm configMapObject
			if err := json.Unmarshal(item, &cm); err != nil {
				return nil, fmt.Errorf("reading the ConfigMap file, document %d: %w", i+1, err)
			}
			if cm.Kind == "ConfigMap" || (cm.Kind == "" && head.Kind == kindConfigMapList) {
				found = append(found, &cm)
			}
		}
	}
	cm, warning, err := pickConfigMap(found, want)
	if err != nil {
		return nil, err
	}
	in := &ConfigMapInput{Ref: cm.ref()}
	if warning != "" {
		in.Warnings = append(in.Warnings, warning)
	}
	in.Warnings = append(in.Warnings, duplicateDataKeys(file)...)
	if in.Data, err = stringValues(cm.Data); err != nil {
		return nil, err
	}
	if in.BinaryData, err = binaryValues(cm.BinaryData); err != nil {
		return nil, err
	}
	return in, nil
}

// pickConfigMap applies the order of ReadConfigMap.
func pickConfigMap(found []*configMapObject, want ConfigMapRef) (*configMapObject, string, error) {
	if len(found) == 0 {
		return nil, "", errors.New("no object of kind ConfigMap found")
	}
	steps := []func(*configMapObject) bool{
		func(cm *configMapObject) bool { return cm.ref() == want },
		func(cm *configMapObject) bool { return cm.ref() == ConfigMapRef{Name: want.Name} },
		func(cm *configMapObject) bool { return cm.Metadata.Name == want.Name },
		func(*configMapObject) bool { return true },
	}
	for step, matches := range steps {
		var picked []*configMapObject
		for _, cm := range found {
			if matches(cm) {
				picked = append(picked, cm)
			}
		}
		switch {
		case len(picked) == 1 && step < 2:
			return picked[0], "", nil
		case len(picked) == 1:
			return picked[0], fmt.Sprintf("the file's ConfigMap is %s, but the controller reads %s "+
				"(set --config-namespace and --slo-config-name to check another)", describe(picked[0]), want), nil
		case len(picked) > 1:
			names := make([]string, len(picked))
			for i, cm := range picked {
				names[i] = describe(cm)
			}
			return nil, "", fmt.Errorf("%d ConfigMaps could be %s: %s; pick one with --config-namespace and --slo-config-name",
				len(picked), want, strings.Join(names, ", "))
		}
	}
	return nil, "", errors.New("unreachable")
}

// describe names a ConfigMap of the file for a message.
func describe(cm *configMapObject) string {
	ns := cm.Metadata.Namespace
	if ns == "" {
		ns = "(no namespace)"
	}
	return clip(ns) + "/" + clip(cm.Metadata.Name)
}

// stringValues decodes data, whose values must be strings: a key's JSON
// document written as a YAML map instead of a block scalar is a common slip.
func stringValues(raw map[string]json.RawMessage) (map[string]string, error) {
	if raw == nil {
		return nil, nil
	}
	data := make(map[string]string, len(raw))
	for _, key := range slices.Sorted(maps.Keys(raw)) {
		var s string
		if err := json.Unmarshal(raw[key], &s); err != nil {
			return nil, fmt.Errorf("data key %q: the value is %s, not a string: write the JSON document as a block scalar "+
				"(\"%s: |\" and the document on the next lines, indented)", clip(key), jsonKind(raw[key]), clip(key))
		}
		data[key] = s
	}
	return data, nil
}

// binaryValues decodes binaryData (base64 strings).
func binaryValues(raw map[string]json.RawMessage) (map[string][]byte, error) {
	if raw == nil {
		return nil, nil
	}
	data := make(map[string][]byte, len(raw))
	for _, key := range slices.Sorted(maps.Keys(raw)) {
		var b []byte
		if err := json.Unmarshal(raw[key], &b); err != nil {
			return nil, fmt.Errorf("binaryData key %q: the value must be a base64 string", clip(key))
		}
		data[key] = b
	}
	return data, nil
}

// jsonKind names the kind of a JSON value for a message.
func jsonKind(raw json.RawMessage) string {
	switch s := strings.TrimSpace(string(raw)); {
	case strings.HasPrefix(s, "{"):
		return "a map"
	case strings.HasPrefix(s, "["):
		return "a list"
	case s == "null":
		return "empty (null)"
	case s == "true" || s == "false":
		return "a boolean"
	default:
		return "a number"
	}
}

// openInput opens path ("-" for stdin).
func openInput(path string, stdin io.Reader) (io.Reader, func(), error) {
	if path == "-" {
		return stdin, func() {}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { _ = f.Close() }, nil
}
