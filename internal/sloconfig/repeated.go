package sloconfig

import (
	"maps"
	"reflect"
)

// Koordinator reads the ConfigMap with encoding/json, which decodes a
// repeated field into the value the field already holds instead of starting
// afresh. mergeRepeated reproduces that on checked trees, so that a repeated
// field means here what it means to Koordinator (checked with Go 1.26):
//
//   - an object of struct type merges field by field, recursively;
//   - a map keeps its keys and takes the later value of each key it repeats;
//   - a list takes the later list's length, and its element i is decoded
//     into the earlier element i (so objects in lists merge element-wise);
//   - anything else is replaced.
//
// One quirk is not reproduced: after a shorter list, encoding/json may
// revive the dropped elements when a third, longer list reuses the slice's
// spare capacity; here they stay dropped.
func mergeRepeated(prev, next any, t reflect.Type) any {
	if prev == nil || next == nil {
		return next
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == quantityType || t == intOrStringType {
		return next
	}
	switch t.Kind() {
	case reflect.Struct:
		return mergeFields(prev, next, fieldsOf(t))
	case reflect.Map:
		p, pok := prev.(map[string]any)
		n, nok := next.(map[string]any)
		if !pok || !nok {
			return next
		}
		out := maps.Clone(p)
		maps.Copy(out, n)
		return out
	case reflect.Slice:
		return mergeElements(prev, next, func(p, n any) any { return mergeRepeated(p, n, t.Elem()) })
	default:
		return next
	}
}

// mergeFields merges two checked objects of the struct described by fs.
func mergeFields(prev, next any, fs *fieldSet) any {
	p, pok := prev.(map[string]any)
	n, nok := next.(map[string]any)
	if !pok || !nok {
		return next
	}
	out := maps.Clone(p)
	for k, v := range n {
		if t, known := fs.byName[k]; known {
			out[k] = mergeRepeated(p[k], v, t)
		} else {
			out[k] = v
		}
	}
	return out
}

// mergeElements decodes list next into list prev, element by element.
func mergeElements(prev, next any, merge func(p, n any) any) any {
	p, pok := prev.([]any)
	n, nok := next.([]any)
	if !pok || !nok {
		return next
	}
	out := make([]any, len(n))
	for i := range n {
		if i < len(p) {
			out[i] = merge(p[i], n[i])
		} else {
			out[i] = n[i]
		}
	}
	return out
}

// nullable reports whether encoding/json stores a JSON null in a value of
// type t (it clears pointers, maps, slices and interfaces); for any other
// type a null is ignored and the value decoded so far stays.
func nullable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
		return true
	default:
		return false
	}
}

// unset reports whether a merged value is one that Koordinator's overlay
// never applies (see shapeChecker.check): nil, "", an empty list or map.
func unset(v any, t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == "" && t.Kind() == reflect.String
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0 && t.Kind() == reflect.Map
	default:
		return false
	}
}
