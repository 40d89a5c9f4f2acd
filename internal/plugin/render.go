package plugin

import (
	"encoding/json"
	"fmt"
	"io"

	"sigs.k8s.io/yaml"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// renderedList is a v1 List, the shape kubectl prints for several objects.
type renderedList struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Items      []renderedNodeSLO `json:"items"`
}

// renderedNodeSLO is a NodeSLO as the controller would create it, without
// the server-set metadata (creationTimestamp, uid...) and the empty status.
type renderedNodeSLO struct {
	APIVersion string                  `json:"apiVersion"`
	Kind       string                  `json:"kind"`
	Metadata   renderedMetadata        `json:"metadata"`
	Spec       slov1alpha1.NodeSLOSpec `json:"spec"`
}

type renderedMetadata struct {
	Name string `json:"name"`
}

// DefaultNode stands in for a cluster when no nodes are given.
var DefaultNode = sloconfig.Node{Name: "node"}

// Render writes, in format ("yaml" or "json"), the NodeSLO of every node as
// the controller would create it on a fresh start from data (nil: no
// ConfigMap). Invalid keys therefore render as their defaults. Errors,
// warnings and node warnings go to errOut; the result says whether every
// key was valid.
func Render(data map[string]string, nodes []sloconfig.Node, format string, out, errOut io.Writer) (bool, error) {
	cfg := sloconfig.Load(data, nil)
	printReports(cfg, errOut, errOut)
	list := renderedList{APIVersion: "v1", Kind: "List", Items: make([]renderedNodeSLO, 0, len(nodes))}
	for _, node := range nodes {
		res := cfg.Resolve(node, nil)
		for _, w := range res.Warnings {
			_, _ = fmt.Fprintf(errOut, "warning: node %s: %s: %s\n", node.Name, w.Reason, w.Message)
		}
		list.Items = append(list.Items, renderedNodeSLO{
			APIVersion: slov1alpha1.GroupVersion.String(),
			Kind:       "NodeSLO",
			Metadata:   renderedMetadata{Name: node.Name},
			Spec:       res.Spec,
		})
	}
	var encoded []byte
	var err error
	switch format {
	case "json":
		encoded, err = json.MarshalIndent(list, "", "    ")
		encoded = append(encoded, '\n')
	case "yaml":
		encoded, err = yaml.Marshal(list)
	default:
		return false, fmt.Errorf("unknown output format %q: use yaml or json", format)
	}
	if err != nil {
		return false, err
	}
	_, err = out.Write(encoded)
	return cfg.Valid(), err
}
