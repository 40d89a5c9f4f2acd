package plugin

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	corev1 "k8s.io/api/core/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// DefaultConfigMapName is the ConfigMap picked when a file holds several.
const DefaultConfigMapName = "slo-controller-config"

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

// ReadConfigMapData returns the data of the ConfigMap in r. A file holding
// several ConfigMaps (an install manifest, say) must hold exactly one named
// slo-controller-config.
func ReadConfigMapData(r io.Reader) (map[string]string, error) {
	docs, err := documents(r)
	if err != nil {
		return nil, fmt.Errorf("reading the ConfigMap: %w", err)
	}
	var found []corev1.ConfigMap
	for _, doc := range docs {
		var cm corev1.ConfigMap
		if err := yaml.Unmarshal(doc, &cm); err != nil {
			return nil, fmt.Errorf("reading the ConfigMap: %w", err)
		}
		if cm.Kind == "ConfigMap" {
			found = append(found, cm)
		}
	}
	switch {
	case len(found) == 1:
		return nonNil(found[0].Data), nil
	case len(found) == 0:
		return nil, errors.New("no object of kind ConfigMap found")
	}
	for _, cm := range found {
		if cm.Name == DefaultConfigMapName {
			return nonNil(cm.Data), nil
		}
	}
	return nil, fmt.Errorf("%d ConfigMaps found and none is named %s", len(found), DefaultConfigMapName)
}

// nonNil keeps "a ConfigMap without data" apart from "no ConfigMap".
func nonNil(data map[string]string) map[string]string {
	if data == nil {
		return map[string]string{}
	}
	return data
}

// ReadNodes returns the nodes in r: a Node, a NodeList, a List of Nodes, or
// several YAML documents of those.
func ReadNodes(r io.Reader) ([]sloconfig.Node, error) {
	docs, err := documents(r)
	if err != nil {
		return nil, fmt.Errorf("reading nodes: %w", err)
	}
	var nodes []sloconfig.Node
	for i, doc := range docs {
		var head typeHeader
		if err := yaml.Unmarshal(doc, &head); err != nil {
			return nil, fmt.Errorf("reading nodes, document %d: %w", i+1, err)
		}
		items := []json.RawMessage{json.RawMessage(doc)}
		switch head.Kind {
		case "Node":
		case "NodeList", "List":
			items = head.Items
		default:
			return nil, fmt.Errorf("reading nodes, document %d: kind %q is not Node, NodeList or List", i+1, head.Kind)
		}
		for _, item := range items {
			var node corev1.Node
			if err := yaml.Unmarshal(item, &node); err != nil {
				return nil, fmt.Errorf("reading nodes, document %d: %w", i+1, err)
			}
			if node.Kind != "" && node.Kind != "Node" {
				return nil, fmt.Errorf("reading nodes, document %d: a list item has kind %q, not Node", i+1, node.Kind)
			}
			nodes = append(nodes, sloconfig.Node{Name: node.Name, Labels: node.Labels, Annotations: node.Annotations})
		}
	}
	return nodes, nil
}

// readFile opens path ("-" for stdin) and hands it to read.
func readFile[T any](path string, stdin io.Reader, read func(io.Reader) (T, error)) (T, error) {
	if path == "-" {
		return read(stdin)
	}
	f, err := os.Open(path)
	if err != nil {
		var zero T
		return zero, err
	}
	defer func() { _ = f.Close() }()
	return read(f)
}
