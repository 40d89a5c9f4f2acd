package plugin

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/client-go/util/jsonpath"
	"sigs.k8s.io/yaml"
)

// -o on the commands that print a result (docs/kubectl-nodeslo.md#machine-readable-output),
// with kubectl's names and meanings. json and yaml print each command's
// structure, documented there, whose field names stay as they are; fields
// may be added. YAML is the same structure as JSON, converted as kubectl
// converts objects. jsonpath and custom-columns read that structure too, as
// kubectl's read an object's JSON; name names the objects a command reports
// on. The printers are the plugin's own, on client-go's jsonpath: kubectl's
// (k8s.io/cli-runtime) would bring kustomize into the build.
const (
	outputText              = "" // the default: text for a person
	outputJSON              = "json"
	outputYAML              = "yaml"
	outputName              = "name"
	outputWide              = "wide"
	outputJSONPath          = "jsonpath"
	outputJSONPathAsJSON    = "jsonpath-as-json"
	outputJSONPathFile      = "jsonpath-file"
	outputCustomColumns     = "custom-columns"
	outputCustomColumnsFile = "custom-columns-file"
)

// The forms each command offers: every one where a command prints objects
// and text; render prints no text, so no wide; version's result is one
// line about no object, so neither name nor wide.
var (
	objectForms = []string{outputCustomColumns, outputCustomColumnsFile, outputJSON, outputJSONPath,
		outputJSONPathAsJSON, outputJSONPathFile, outputName, outputWide, outputYAML}
	renderForms  = slices.DeleteFunc(slices.Clone(objectForms), func(f string) bool { return f == outputWide })
	versionForms = slices.DeleteFunc(slices.Clone(objectForms),
		func(f string) bool { return f == outputWide || f == outputName })
)

// templateForms take their template after "=": the text, or a file's name.
var templateForms = map[string]bool{outputJSONPath: true, outputJSONPathAsJSON: true, outputJSONPathFile: true,
	outputCustomColumns: true, outputCustomColumnsFile: true}

// outputFormat is a value of -o, checked, its template read and parsed, so
// that a mistake in it is said before the cluster is asked anything.
type outputFormat struct {
	form     string
	jsonPath *jsonpath.JSONPath // the jsonpath forms
	columns  []outputColumn     // the custom-columns forms
}

// text reports whether the command prints its text for a person (-o wide
// included); wide whether with the columns -o wide adds.
func (f outputFormat) text() bool { return f.form == outputText || f.form == outputWide }
func (f outputFormat) wide() bool { return f.form == outputWide }

// addOutputFlag binds -o with the forms a command offers (empty by
// default: its text), and completes them.
func addOutputFlag(cmd *cobra.Command, output *string, forms []string) {
	cmd.Flags().StringVarP(output, "output", "o", "", "Output format. One of: ("+strings.Join(forms, ", ")+
		"). Default: text for a person.")
	_ = cmd.RegisterFlagCompletionFunc("output", completeOutput(forms))
}

// parseOutput checks value against forms and reads its template: a bad
// value is answered with kubectl's words, naming the forms allowed.
func parseOutput(value string, forms []string) (outputFormat, error) {
	form, template, hasTemplate := strings.Cut(value, "=")
	if value == outputText {
		return outputFormat{}, nil
	}
	if !slices.Contains(forms, form) || hasTemplate && !templateForms[form] {
		return outputFormat{}, fmt.Errorf("unable to match a printer suitable for the output format %q, "+
			"allowed formats are: %s", clip(value), strings.Join(forms, ","))
	}
	if !templateForms[form] {
		return outputFormat{form: form}, nil
	}
	if template == "" {
		return outputFormat{}, fmt.Errorf("%s format specified but no template given: write -o %s=TEMPLATE", form, form)
	}
	if form == outputJSONPathFile || form == outputCustomColumnsFile {
		data, err := readTemplateFile(template)
		if err != nil {
			return outputFormat{}, err
		}
		template = data
	}
	f := outputFormat{form: form}
	var err error
	switch form {
	case outputCustomColumns:
		f.columns, err = parseCustomColumns(template)
	case outputCustomColumnsFile:
		f.columns, err = parseCustomColumnsFile(template)
	default:
		f.jsonPath, err = parseJSONPath(template, form == outputJSONPathAsJSON)
	}
	return f, err
}

// printable is a command's result as -o prints it. value, as JSON, is what
// json and yaml print and what jsonpath reads; the elements of its field
// rows (""; value itself) are the objects, custom-columns' rows; names are
// the objects as -o name prints them, kubectl's resource.group/name.
type printable struct {
	value any
	rows  string
	names []string
}

// print writes p in f, one of the forms other than the text.
func (f outputFormat) print(w io.Writer, p printable) error {
	switch f.form {
	case outputJSON, outputYAML:
		return writeStructured(w, f.form, p.value)
	case outputName:
		for _, n := range p.names {
			printLine(w, n)
		}
		return nil
	case outputCustomColumns, outputCustomColumnsFile:
		return writeColumns(w, f.columns, p)
	default:
		return writeJSONPath(w, f.jsonPath, p.value)
	}
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

// completeOutput completes -o with forms, the template forms with their
// "=" and no space after it, so that the template follows.
func completeOutput(forms []string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		onlyTemplates := true
		for _, f := range forms {
			if templateForms[f] {
				f += "="
			}
			if strings.HasPrefix(f, toComplete) {
				out = append(out, cobra.CompletionWithDesc(f, outputFormDescriptions[strings.TrimSuffix(f, "=")]))
				onlyTemplates = onlyTemplates && strings.HasSuffix(f, "=")
			}
		}
		directive := cobra.ShellCompDirectiveNoFileComp
		if len(out) > 0 && onlyTemplates {
			directive |= cobra.ShellCompDirectiveNoSpace
		}
		return out, directive
	}
}

// outputFormDescriptions describe the forms in completion.
var outputFormDescriptions = map[string]string{
	outputJSON:              "the result as JSON",
	outputYAML:              "the result as YAML",
	outputName:              "the objects reported on, as resource.group/name",
	outputWide:              "the text, with more columns where it has a table",
	outputJSONPath:          "a JSONPath template over the result's JSON",
	outputJSONPathAsJSON:    "a JSONPath template, its results as JSON",
	outputJSONPathFile:      "a file holding a JSONPath template",
	outputCustomColumns:     "a table: HEADER:.json.path,...",
	outputCustomColumnsFile: "a file with a line of headers and a line of JSON paths",
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
