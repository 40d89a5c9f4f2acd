package sloconfig

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// rules collects field errors under one path. Each method checks one kind
// of rule of docs/nodeslo-api.md#field-reference; unset (nil or empty) values pass, since unset
// means "the agent's own default".
type rules struct {
	path *field.Path
	errs field.ErrorList
	// written reports whether the entry being checked sets the field at a
	// path itself (rather than inheriting it); nil counts every field as
	// written. Cross-field errors go to the field the entry wrote.
	written func(*field.Path) bool
}

func (r *rules) at(path *field.Path) *rules { return &rules{path: path, written: r.written} }

func (r *rules) add(sub *rules) { r.errs = append(r.errs, sub.errs...) }

func (r *rules) between(name string, v *int64, lo, hi int64) {
	r.errs = append(r.errs, InRange(r.path.Child(name), v, lo, hi)...)
}

// InRange checks lo <= v <= hi for a number at path; an unset (nil) v
// passes. Every bound of the engine reads the same.
func InRange(path *field.Path, v *int64, lo, hi int64) field.ErrorList {
	if v != nil && (*v < lo || *v > hi) {
		return field.ErrorList{field.Invalid(path, *v, validation.InclusiveRangeError(int(lo), int(hi)))}
	}
	return nil
}

func (r *rules) between32(name string, v *int32, lo, hi int64) {
	if v != nil {
		r.between(name, new(int64(*v)), lo, hi)
	}
}

func (r *rules) atLeast(name string, v *int64, lo int64) {
	if v != nil && *v < lo {
		r.errs = append(r.errs, field.Invalid(r.path.Child(name), *v, fmt.Sprintf("must be greater than or equal to %d", lo)))
	}
}

func (r *rules) above(name string, v *int64, lo int64) {
	if v != nil && *v <= lo {
		r.errs = append(r.errs, field.Invalid(r.path.Child(name), *v, fmt.Sprintf("must be greater than %d", lo)))
	}
}

// less checks lower < upper when both are set. The error names the lower
// field, unless the entry wrote only the upper one.
func (r *rules) less(lowerName string, lower *int64, upperName string, upper *int64) {
	if lower == nil || upper == nil || *lower < *upper {
		return
	}
	lowerPath, upperPath := r.path.Child(lowerName), r.path.Child(upperName)
	if r.written != nil && !r.written(lowerPath) && r.written(upperPath) {
		r.errs = append(r.errs, field.Invalid(upperPath, *upper,
			fmt.Sprintf("must be greater than %s (%d)", lowerName, *lower)))
		return
	}
	r.errs = append(r.errs, field.Invalid(lowerPath, *lower, fmt.Sprintf("must be less than %s (%d)", upperName, *upper)))
}

// required checks that a string field the node agent needs is set.
func (r *rules) required(name, v, why string) {
	if v == "" {
		r.errs = append(r.errs, field.Required(r.path.Child(name), why))
	}
}

// bandwidthQuantity checks a bandwidth given as a quantity (see checkBandwidth).
func (r *rules) bandwidthQuantity(name string, q resource.Quantity) {
	if err := checkBandwidth(q); err != nil {
		r.errs = append(r.errs, field.Invalid(r.path.Child(name), echo(q.String()), err.Error()))
	}
}

// oneOf checks an enum; the empty string means unset.
func oneOf[S ~string](r *rules, name string, v S, allowed ...S) {
	if v != "" && !slices.Contains(allowed, v) {
		names := make([]string, len(allowed))
		for i, a := range allowed {
			names[i] = string(a)
		}
		r.errs = append(r.errs, field.NotSupported(r.path.Child(name), echo(string(v)), names))
	}
}

// oneOfPtr checks an optional enum held by pointer; a set pointer must hold an allowed value.
func oneOfPtr[S ~string](r *rules, name string, v *S, allowed ...S) {
	if v == nil {
		return
	}
	if *v == "" {
		r.errs = append(r.errs, field.Invalid(r.path.Child(name), "", "must not be empty; leave the field out instead"))
		return
	}
	oneOf(r, name, *v, allowed...)
}
