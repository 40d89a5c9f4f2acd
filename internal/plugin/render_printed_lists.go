package plugin

import (
	"bufio"
)

// The lists of render -o name, jsonpath and custom-columns, beside the
// YAML and JSON ones of render.go.

// nameList writes -o name: each NodeSLO as kubectl names it, as it is
// rendered.
type nameList struct{}

func (nameList) begin(*bufio.Writer, int) {}

func (nameList) item(w *bufio.Writer, _ int, item renderedNodeSLO) error {
	_, err := w.WriteString(inert(objectName(nodeSLOKind, item.Metadata.Name)) + "\n")
	return err
}

func (nameList) end(*bufio.Writer, int) error { return nil }

// templateList keeps the List whole for -o jsonpath and custom-columns,
// which read it as kubectl's read a List (a template may reach across
// items): it holds every spec, as the YAML and JSON lists avoid.
type templateList struct {
	format outputFormat
	items  []renderedNodeSLO
}

// renderedList is the List render prints, as the templates read it.
type renderedList struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Items      []renderedNodeSLO `json:"items"`
}

func (l *templateList) begin(_ *bufio.Writer, n int) { l.items = make([]renderedNodeSLO, 0, n) }

func (l *templateList) item(_ *bufio.Writer, _ int, item renderedNodeSLO) error {
	l.items = append(l.items, item)
	return nil
}

func (l *templateList) end(w *bufio.Writer, _ int) error {
	return l.format.print(w, printable{value: renderedList{APIVersion: "v1", Kind: "List", Items: l.items},
		rows: listItems})
}
