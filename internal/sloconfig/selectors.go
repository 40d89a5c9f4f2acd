package sloconfig

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// compileSelector validates a node entry's nodeSelector and compiles it
// once, so that resolving never parses a selector. tree is the selector as
// written (nil when the entry has none: an error, since it could never match).
func compileSelector(tree any, path *field.Path) (labels.Selector, bool, field.ErrorList) {
	if tree == nil {
		return nil, false, field.ErrorList{field.Required(path,
			"an entry without a nodeSelector never matches any node; write {} to match every node")}
	}
	sel := &metav1.LabelSelector{}
	if err := fromTree(tree, sel); err != nil {
		return nil, false, field.ErrorList{field.Invalid(path, field.OmitValueType{}, err.Error())}
	}
	return CompileLabelSelector(sel, path)
}

// CompileLabelSelector validates a label selector at path and compiles it.
// The bool is true when the selector has no requirement: it matches every
// node.
func CompileLabelSelector(sel *metav1.LabelSelector, path *field.Path) (labels.Selector, bool, field.ErrorList) {
	opts := metav1validation.LabelSelectorValidationOptions{}
	if errs := metav1validation.ValidateLabelSelector(sel, opts, path); len(errs) > 0 {
		return nil, false, errs
	}
	compiled, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return nil, false, field.ErrorList{field.Invalid(path, field.OmitValueType{}, err.Error())}
	}
	empty := len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0
	return compiled, empty, nil
}
