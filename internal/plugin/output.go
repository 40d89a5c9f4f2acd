package plugin

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"
)

// -o json|yaml on the commands that read (docs/kubectl-nodeslo.md#machine-readable-output):
// each prints a structure of its own, documented there, whose field names
// stay as they are; fields may be added. YAML is the same structure as
// JSON, converted as kubectl converts objects.
const (
	outputJSON = "json"
	outputYAML = "yaml"
)

// addOutputFlag binds -o, empty by default: the text for a person.
func addOutputFlag(flags *pflag.FlagSet, output *string) {
	flags.StringVarP(output, "output", "o", "", "Output format: json or yaml (default: text for a person).")
}

// checkOutput refuses a format other than json, yaml or none.
func checkOutput(output string) error {
	switch output {
	case "", outputJSON, outputYAML:
		return nil
	}
	return fmt.Errorf("unknown output format %q: use json or yaml", clip(output))
}

// writeStructured prints v as indented JSON or as YAML.
func writeStructured(w io.Writer, output string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if output == outputYAML {
		if data, err = yaml.JSONToYAML(data); err != nil {
			return err
		}
	} else {
		data = append(data, '\n')
	}
	_, err = w.Write(data)
	return err
}

// FieldChangeOutput is a FieldChange as -o prints it: the old and new
// values as JSON, absent when unset.
type FieldChangeOutput struct {
	Path string          `json:"path"`
	Old  json.RawMessage `json:"old,omitempty"`
	New  json.RawMessage `json:"new,omitempty"`
}

func fieldChangesOutput(changes []FieldChange) []FieldChangeOutput {
	out := make([]FieldChangeOutput, 0, len(changes))
	for _, c := range changes {
		out = append(out, FieldChangeOutput{Path: c.Path, Old: rawValue(c.Old), New: rawValue(c.New)})
	}
	return out
}

// rawValue is a FieldChange's value as JSON: nil when unset, a JSON string
// when it is not JSON (a ConfigMap value that does not parse).
func rawValue(v string) json.RawMessage {
	if v == none {
		return nil
	}
	if json.Valid([]byte(v)) {
		return json.RawMessage(v)
	}
	quoted, _ := json.Marshal(v)
	return quoted
}
