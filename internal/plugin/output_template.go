package plugin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
)

// maxTemplateFileBytes bounds a -o jsonpath-file or custom-columns-file: a
// template is a line or two, and a wrong path must not fill the memory.
const maxTemplateFileBytes = 1 << 20

// readTemplateFile reads the template of a -o ...-file form.
func readTemplateFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("reading the -o template: %w", err)
	}
	defer func() { _ = f.Close() }()
	data, err := io.ReadAll(newCheckedReader(f, "the -o template "+clip(path), maxTemplateFileBytes))
	if err != nil {
		return "", err
	}
	return string(data), nil
}

// templateData is v as the templates read it: its JSON, decoded into maps,
// lists, strings, bools, int64 for whole numbers and float64 for the others,
// as kubectl decodes an object for them, so that 1000000 prints as such and
// not as 1e+06.
func templateData(v any) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return withNumbers(out), nil
}

// withNumbers replaces each json.Number in v by an int64 or a float64.
func withNumbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = withNumbers(e)
		}
	case []any:
		for i, e := range t {
			t[i] = withNumbers(e)
		}
	case json.Number:
		if n, err := strconv.ParseInt(string(t), 10, 64); err == nil {
			return n
		}
		f, _ := t.Float64()
		return f
	}
	return v
}
