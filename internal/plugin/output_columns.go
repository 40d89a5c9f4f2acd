package plugin

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"text/tabwriter"

	"k8s.io/client-go/util/jsonpath"
)

// outputColumn is a column of -o custom-columns: its header and the JSONPath
// of its value in each row.
type outputColumn struct {
	header string
	path   *jsonpath.JSONPath
}

// noValue is a cell whose path finds nothing, as kubectl prints it.
const noValue = "<none>"

// parseCustomColumns parses kubectl's -o custom-columns=HEADER:PATH,...
// where each PATH is a JSONPath with or without its braces and first dot
// (.metadata.name, metadata.name, {.metadata.name}).
func parseCustomColumns(spec string) ([]outputColumn, error) {
	var columns []outputColumn
	for part := range strings.SplitSeq(spec, ",") {
		header, path, found := strings.Cut(part, ":")
		if !found || header == "" || path == "" {
			return nil, fmt.Errorf("unexpected custom-columns spec: %s, expected <header>:<json-path-expr>", clip(part))
		}
		c, err := newOutputColumn(header, path)
		if err != nil {
			return nil, err
		}
		columns = append(columns, c)
	}
	return columns, nil
}

// parseCustomColumnsFile parses a -o custom-columns-file, kubectl's: a line
// of headers and a line of as many JSONPaths, separated by white space.
func parseCustomColumnsFile(text string) ([]outputColumn, error) {
	var lines [][]string
	for line := range strings.SplitSeq(strings.TrimSpace(text), "\n") {
		if fields := strings.Fields(line); len(fields) > 0 {
			lines = append(lines, fields)
		}
	}
	if len(lines) != 2 {
		return nil, fmt.Errorf("a custom-columns file has two lines, the headers and their JSONPaths; this one has %d",
			len(lines))
	}
	headers, paths := lines[0], lines[1]
	if len(headers) != len(paths) {
		return nil, fmt.Errorf("the custom-columns file has %d headers and %d JSONPaths: give one JSONPath per header",
			len(headers), len(paths))
	}
	columns := make([]outputColumn, 0, len(headers))
	for i, header := range headers {
		c, err := newOutputColumn(header, paths[i])
		if err != nil {
			return nil, err
		}
		columns = append(columns, c)
	}
	return columns, nil
}

// newOutputColumn parses path, relaxed as kubectl relaxes a column's path.
func newOutputColumn(header, path string) (outputColumn, error) {
	expr := strings.TrimSpace(path)
	braced := strings.HasPrefix(expr, "{")
	if braced != strings.HasSuffix(expr, "}") {
		return outputColumn{}, fmt.Errorf("unexpected path string %s of column %s, expected a 'name1.name2' or "+
			"'.name1.name2' or '{name1.name2}' or '{.name1.name2}'", clip(path), clip(header))
	}
	expr = strings.TrimSuffix(strings.TrimPrefix(expr, "{"), "}")
	if !strings.HasPrefix(expr, ".") {
		expr = "." + expr
	}
	jp := jsonpath.New(header).AllowMissingKeys(true)
	if err := jp.Parse("{" + expr + "}"); err != nil {
		return outputColumn{}, fmt.Errorf("error parsing the path %s of column %s: %w", clip(path), clip(header), err)
	}
	return outputColumn{header: header, path: jp}, nil
}

// writeColumns prints p's objects as a table, one row each, one cell per
// column: the values its path finds, joined by commas (an object or a list
// as JSON), or <none>. Cells are text for a person: made inert
// (terminal_text.go), as the plugin's other tables are.
func writeColumns(w io.Writer, columns []outputColumn, p printable) error {
	data, err := templateData(p.value)
	if err != nil {
		return err
	}
	rows := []any{data}
	if p.rows != "" {
		object, _ := data.(map[string]any)
		rows, _ = object[p.rows].([]any)
	}
	tw := tabwriter.NewWriter(w, 6, 4, 3, ' ', 0)
	headers := make([]string, len(columns))
	for i, c := range columns {
		headers[i] = inert(c.header)
	}
	_, _ = fmt.Fprintln(tw, strings.Join(headers, "\t"))
	for _, row := range rows {
		cells := make([]string, len(columns))
		for i, c := range columns {
			cell, err := columnCell(c, row)
			if err != nil {
				return err
			}
			cells[i] = inert(cell)
		}
		_, _ = fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

// columnCell is what column c shows of row.
func columnCell(c outputColumn, row any) (string, error) {
	found, err := c.path.FindResults(row)
	if err != nil {
		return "", fmt.Errorf("column %s: %w", clip(c.header), err)
	}
	var values []string
	for _, results := range found {
		for _, v := range results {
			values = append(values, cellValue(v))
		}
	}
	if len(values) == 0 {
		return noValue, nil
	}
	return strings.Join(values, ","), nil
}

// cellValue is one value found: a string as it is, a number or a bool as
// Go prints it, an object or a list as JSON, null as <none>.
func cellValue(v reflect.Value) string {
	for v.Kind() == reflect.Interface {
		if v.IsNil() {
			return noValue
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Map, reflect.Slice:
		// Decoded from JSON, it marshals again.
		data, _ := json.Marshal(v.Interface())
		return string(data)
	case reflect.Invalid:
		return noValue
	}
	return fmt.Sprint(v.Interface())
}
