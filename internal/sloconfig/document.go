package sloconfig

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Findings is what checking one key's document found: its errors and
// warnings, the first maxReported of each kept and the rest counted, as
// every key of the engine reports them. NewFindings and DecodeDocument
// return one, and the document's own checks go on adding to it.
type Findings struct{ found *findings }

// NewFindings is an empty Findings, for checks of a document that was
// decoded elsewhere (a typed object the apiserver stored).
func NewFindings() *Findings { return &Findings{found: &findings{}} }

// Fail adds errors.
func (f *Findings) Fail(errs ...*field.Error) { f.found.fail(errs...) }

// Warnf adds a warning, formatted only when it is kept.
func (f *Findings) Warnf(format string, args ...any) {
	if f.found.warning() {
		f.found.warnings = append(f.found.warnings, fmt.Sprintf(format, args...))
	}
}

// Report returns the errors and warnings (as in a SectionReport), each
// list closed by a line that counts what was left out, and the values and
// paths they quote bounded.
func (f *Findings) Report() (field.ErrorList, []string) { return f.found.report() }

// DecodeDocument parses raw, a key's JSON document whose top-level fields
// are T's, with the parser and shape checks of the engine's own keys
// (errors and warnings with a line and column, unknown fields warned about
// with the closest known name, repeated fields decoded as encoding/json
// does, unknown fields of a label selector rejected), then decodes it into
// a T. The T is nil when the document cannot be used; the Findings say why.
func DecodeDocument[T any](raw string) (*T, *Findings) {
	doc, found := parseAndCheck(raw, documentShape{top: fieldsOf(reflect.TypeFor[T]())})
	out := &Findings{found: found}
	if found.failed() > 0 {
		return nil, out
	}
	var written T
	if err := fromTree(doc.top, &written); err != nil {
		found.fail(rootError(err.Error()))
		return nil, out
	}
	return &written, out
}
