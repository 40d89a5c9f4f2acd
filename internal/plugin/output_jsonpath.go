package plugin

import (
	"fmt"
	"io"

	"k8s.io/client-go/util/jsonpath"
)

// parseJSONPath parses a -o jsonpath template, kubectl's: text with
// {.json.path} expressions in it; asJSON prints the results as a JSON list
// (-o jsonpath-as-json). A key missing from the result prints nothing, as
// kubectl's default --allow-missing-template-keys does.
func parseJSONPath(template string, asJSON bool) (*jsonpath.JSONPath, error) {
	jp := jsonpath.New("output").AllowMissingKeys(true)
	if err := jp.Parse(template); err != nil {
		return nil, fmt.Errorf("error parsing jsonpath %s: %w", clip(template), err)
	}
	jp.EnableJSONOutput(asJSON)
	return jp, nil
}

// writeJSONPath executes jp on v's JSON. As kubectl's, it prints what the
// template says and no more: no newline at the end unless it has one.
func writeJSONPath(w io.Writer, jp *jsonpath.JSONPath, v any) error {
	data, err := templateData(v)
	if err != nil {
		return err
	}
	if err := jp.Execute(w, data); err != nil {
		return fmt.Errorf("error executing jsonpath: %w", err)
	}
	return nil
}
