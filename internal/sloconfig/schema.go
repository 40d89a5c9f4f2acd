package sloconfig

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	quantityType    = reflect.TypeFor[resource.Quantity]()
	intOrStringType = reflect.TypeFor[intstr.IntOrString]()
)

// fieldSet is what a JSON object decoded into a Go struct may contain.
type fieldSet struct {
	byName map[string]reflect.Type
	byFold map[string]string // lower-case name -> canonical name
	names  []string          // sorted, for suggestions
	// strict rejects unknown fields instead of warning: in a selector, a
	// dropped misspelt field widens what the selector matches.
	strict bool
}

// strictTypes are the structs whose unknown fields are errors.
var strictTypes = map[reflect.Type]bool{
	reflect.TypeFor[metav1.LabelSelector]():            true,
	reflect.TypeFor[metav1.LabelSelectorRequirement](): true,
}

var fieldSets sync.Map // reflect.Type -> *fieldSet

// fieldsOf lists the JSON fields of struct type t, inlined embedded structs included.
func fieldsOf(t reflect.Type) *fieldSet {
	if fs, ok := fieldSets.Load(t); ok {
		return fs.(*fieldSet)
	}
	fields := map[string]reflect.Type{}
	addFields(fields, t)
	fs := newFieldSet(fields)
	fs.strict = strictTypes[t]
	fieldSets.Store(t, fs)
	return fs
}

func addFields(fields map[string]reflect.Type, t reflect.Type) {
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				addFields(fields, ft)
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		fields[name] = f.Type
	}
}

// shapeChecker compares a parsed document with the Go types it must decode
// into. It reports type errors (with positions) and unknown fields (as
// warnings naming the closest known field), and turns the tree into plain
// JSON values with canonical key names, ready to be overlaid and decoded.
type shapeChecker struct {
	doc *document
	findings
}

func (c *shapeChecker) warn(path *field.Path, offset int64, format string, args ...any) {
	if c.warning() {
		c.warnings = append(c.warnings,
			fmt.Sprintf("%s: %s (%s)", path, fmt.Sprintf(format, args...), c.doc.position(offset)))
	}
}

func (c *shapeChecker) typeError(path *field.Path, n *jsonNode, want string) {
	c.fail(field.TypeInvalid(path, badValue(n),
		fmt.Sprintf("must be %s (%s)", want, c.doc.position(n.offset))))
}

// badValue is a JSON value as a field error prints it; containers are named, not dumped.
func badValue(n *jsonNode) any {
	switch v := n.value.(type) {
	case jsonObject:
		return "<object>"
	case jsonArray:
		return "<array>"
	case nil:
		return "<null>"
	case string:
		return echo(v)
	case json.Number:
		return json.Number(echo(string(v)))
	default:
		return v
	}
}

// check returns n as a plain value for type t. set is false when the value
// means "not set": null, and the zero values that encoding/json omits when
// it re-encodes a strategy (empty string, empty list), which Koordinator's
// overlay therefore never applies.
func (c *shapeChecker) check(n *jsonNode, t reflect.Type, path *field.Path) (value any, set bool) {
	if n.value == nil {
		return nil, false
	}
	switch t {
	case quantityType:
		return c.checkQuantity(n, path)
	case intOrStringType:
		return c.checkIntOrString(n, path)
	}
	switch t.Kind() {
	case reflect.Pointer:
		return c.check(n, t.Elem(), path)
	case reflect.Struct:
		return c.checkStruct(n, fieldsOf(t), path)
	case reflect.Map:
		return c.checkMap(n, t, path)
	case reflect.Slice:
		return c.checkSlice(n, t, path)
	case reflect.String:
		s, ok := n.value.(string)
		if !ok {
			c.typeError(path, n, "a string")
			return nil, false
		}
		return s, s != ""
	case reflect.Bool:
		b, ok := n.value.(bool)
		if !ok {
			c.typeError(path, n, "true or false")
		}
		return b, ok
	case reflect.Int64, reflect.Int32:
		return c.checkInt(n, t.Bits(), path)
	case reflect.Float64:
		return c.checkNumber(n, path)
	case reflect.Interface:
		return plainValue(n), true
	default:
		c.typeError(path, n, "a value of Go type "+t.String())
		return nil, false
	}
}

func (c *shapeChecker) checkInt(n *jsonNode, bits int, path *field.Path) (any, bool) {
	num, ok := n.value.(json.Number)
	if !ok {
		c.typeError(path, n, "an integer")
		return nil, false
	}
	if _, err := strconv.ParseInt(string(num), 10, bits); err != nil {
		if errors.Is(err, strconv.ErrRange) {
			c.typeError(path, n, fmt.Sprintf("an integer that fits in %d bits", bits))
		} else {
			c.typeError(path, n, "an integer")
		}
		return nil, false
	}
	return num, true
}

// checkNumber checks a JSON number that fits a float64 (the bounds of a
// strategy's metric checks).
func (c *shapeChecker) checkNumber(n *jsonNode, path *field.Path) (any, bool) {
	num, ok := n.value.(json.Number)
	if !ok {
		c.typeError(path, n, "a number")
		return nil, false
	}
	if _, err := strconv.ParseFloat(string(num), 64); err != nil {
		c.typeError(path, n, "a number that fits in 64 bits")
		return nil, false
	}
	return num, true
}

func (c *shapeChecker) checkQuantity(n *jsonNode, path *field.Path) (any, bool) {
	var s string
	switch v := n.value.(type) {
	case string:
		s = v
	case json.Number:
		s = string(v)
	default:
		c.typeError(path, n, "a quantity such as \"10G\"")
		return nil, false
	}
	if _, err := parseQuantity(s); err != nil {
		c.fail(field.Invalid(path, echo(s),
			fmt.Sprintf("%v (%s)", err, c.doc.position(n.offset))))
		return nil, false
	}
	return s, true
}

func (c *shapeChecker) checkIntOrString(n *jsonNode, path *field.Path) (any, bool) {
	switch v := n.value.(type) {
	case string:
		return v, true
	case json.Number:
		return c.checkInt(n, 32, path)
	default:
		c.typeError(path, n, "an integer or a string")
		return nil, false
	}
}

func (c *shapeChecker) checkStruct(n *jsonNode, fs *fieldSet, path *field.Path) (any, bool) {
	obj, ok := n.value.(jsonObject)
	if !ok {
		c.typeError(path, n, "an object")
		return nil, false
	}
	out := make(map[string]any, len(obj))
	seen := make(map[string]bool, len(obj))
	for _, m := range obj {
		name, ok := c.fieldName(fs, m, path)
		if !ok {
			continue
		}
		c.setField(out, name, fs.byName[name], m, path.Child(name), seen[name])
		seen[name] = true
	}
	return out, true
}

// setField checks member m, the field name of type t, and stores its value
// in out. A repeated field is decoded into the value it already has, as
// Koordinator's decoder does (see mergeRepeated), with a warning.
func (c *shapeChecker) setField(
	out map[string]any, name string, t reflect.Type, m jsonMember, path *field.Path, repeated bool,
) {
	v, set := c.check(m.value, t, path)
	if repeated {
		c.warn(path, m.offset, "duplicate field; later values override earlier ones "+
			"(objects merge field by field and lists element by element, as Koordinator's decoder does)")
		if prev, had := out[name]; had {
			if m.value.value == nil && !nullable(t) {
				return // encoding/json ignores this null: the earlier value stays
			}
			if v != nil {
				v = mergeRepeated(prev, v, t)
				set = !unset(v, t)
			}
		}
	}
	switch {
	case set:
		out[name] = v
	case m.value.value == nil && nullable(t):
		// Kept as an explicit null, which overlays and decodes like an
		// absent field, so that a later repeat of the enclosing object
		// can clear the value as encoding/json does.
		out[name] = nil
	default:
		delete(out, name)
	}
}

// fieldName resolves a member's key to a known field, as encoding/json
// does (exact, then case-insensitive), warning about anything else, or, in
// a strict field set, rejecting it.
func (c *shapeChecker) fieldName(fs *fieldSet, m jsonMember, path *field.Path) (string, bool) {
	if _, ok := fs.byName[m.key]; ok {
		return m.key, true
	}
	written := path.Child(echo(m.key))
	if name, ok := fs.byFold[strings.ToLower(m.key)]; ok {
		c.warn(written, m.offset, "field name should be spelled %q; accepted as that field", name)
		return name, true
	}
	hint := ""
	if closest := closestName(m.key, fs.names); closest != "" {
		hint = fmt.Sprintf("; did you mean %q?", closest)
	}
	if fs.strict {
		c.fail(field.Forbidden(written, fmt.Sprintf(
			"unknown field in a label selector, which would select more nodes than meant%s (%s)",
			hint, c.doc.position(m.offset))))
	} else {
		c.warn(written, m.offset, "unknown field, ignored%s", hint)
	}
	return "", false
}

func (c *shapeChecker) checkMap(n *jsonNode, t reflect.Type, path *field.Path) (any, bool) {
	obj, ok := n.value.(jsonObject)
	if !ok {
		c.typeError(path, n, "an object")
		return nil, false
	}
	out := make(map[string]any, len(obj))
	for _, m := range obj {
		keyPath := path.Key(echo(m.key))
		if _, repeated := out[m.key]; repeated {
			c.warn(keyPath, m.offset, "duplicate key; the later value replaces the earlier one")
		}
		if v, set := c.checkElement(m.value, t.Elem(), keyPath); set {
			out[m.key] = v
		}
	}
	return out, len(out) > 0
}

func (c *shapeChecker) checkSlice(n *jsonNode, t reflect.Type, path *field.Path) (any, bool) {
	arr, ok := n.value.(jsonArray)
	if !ok {
		c.typeError(path, n, "a list")
		return nil, false
	}
	out := make([]any, len(arr))
	for i, elem := range arr {
		if elem.value == nil {
			// Decoded, it is a nil pointer or an empty object, which the
			// apiserver or the node agent refuses.
			c.fail(field.Required(path.Index(i), fmt.Sprintf(
				"a list element cannot be null; remove it or write the element (%s)", c.doc.position(elem.offset))))
			continue
		}
		out[i], _ = c.checkElement(elem, t.Elem(), path.Index(i))
	}
	return out, len(out) > 0
}

// checkElement checks a list or map element, where a zero value is a value
// (not "unset") and must be kept as written.
func (c *shapeChecker) checkElement(n *jsonNode, t reflect.Type, path *field.Path) (any, bool) {
	before := c.failed()
	v, set := c.check(n, t, path)
	switch {
	case set || n.value == nil:
		return v, true
	case c.failed() > before:
		return nil, false
	default:
		return plainValue(n), true
	}
}

// plainValue converts a node to the values encoding/json produces with UseNumber.
func plainValue(n *jsonNode) any {
	switch v := n.value.(type) {
	case jsonObject:
		out := make(map[string]any, len(v))
		for _, m := range v {
			out[m.key] = plainValue(m.value)
		}
		return out
	case jsonArray:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = plainValue(e)
		}
		return out
	default:
		return v
	}
}
