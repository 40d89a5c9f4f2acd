package sloconfig

import (
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// compiled is the outcome of reading one key: a section ready to resolve,
// or errors that reject the key as a whole.
type compiled[V any] struct {
	section  section[V]
	errs     field.ErrorList
	warnings []string
	// found collects errs and warnings until done sets them.
	found *findings
}

// done sets errs and warnings from what was found.
func (out *compiled[V]) done() compiled[V] {
	out.errs, out.warnings = out.found.report()
	return *out
}

// strategyKind describes one of the four strategy keys: its built-in
// default and its validation.
type strategyKind[T any] struct {
	defaults func() *T
	validate func(*T, *rules) field.ErrorList
	// schemaDefaults fills in what the CRD's schema defaults would fill in
	// when the value is stored (nil: nothing), so that the spec resolved is
	// the spec stored (docs/nodeslo-api.md#resourceqos).
	schemaDefaults func(*T)
}

var (
	thresholdKind = strategyKind[slov1alpha1.ResourceThresholdStrategy]{
		defaults: DefaultResourceThresholdStrategy, validate: validateResourceThreshold,
	}
	qosKind = strategyKind[slov1alpha1.ResourceQOSStrategy]{
		defaults: DefaultResourceQOSStrategy, validate: validateResourceQOS, schemaDefaults: fillNetworkQOSDefaults,
	}
	burstKind  = strategyKind[slov1alpha1.CPUBurstStrategy]{defaults: DefaultCPUBurstStrategy, validate: validateCPUBurst}
	systemKind = strategyKind[slov1alpha1.SystemStrategy]{defaults: DefaultSystemStrategy, validate: validateSystem}
)

func (k strategyKind[T]) shape() documentShape {
	strategy := reflect.TypeFor[T]()
	return documentShape{
		top: newFieldSet(map[string]reflect.Type{
			"clusterStrategy":   reflect.PointerTo(strategy),
			fieldNodeStrategies: reflect.TypeFor[[]any](),
		}),
		entriesKey: fieldNodeStrategies,
		entry:      withProfile(fieldsOf(strategy)),
	}
}

// defaultSection is the section of a key absent from the ConfigMap.
func (k strategyKind[T]) defaultSection() section[*T] {
	return section[*T]{fallback: k.defaults()}
}

// compile reads a strategy document: the cluster strategy is the default
// overlaid with clusterStrategy; each node strategy is that overlaid with
// the entry's own fields. Every merged value is validated, so cross-field
// rules see the numbers in force, and errors carry the entry's path.
func (k strategyKind[T]) compile(raw string) compiled[*T] {
	var out compiled[*T]
	doc, found := parseAndCheck(raw, k.shape())
	out.found = found
	if found.failed() > 0 {
		return out.done()
	}
	defaults, err := toTree(k.defaults())
	if err != nil {
		found.fail(field.InternalError(nil, err))
		return out.done()
	}
	clusterPath := field.NewPath("clusterStrategy")
	clusterTree := overlay(defaults, doc.top["clusterStrategy"])
	cluster, errs := k.decode(clusterTree, clusterPath, doc.top["clusterStrategy"])
	found.fail(errs...)
	out.section.fallback = cluster
	clusterFindings := relativeErrors(errs, clusterPath)

	for _, e := range doc.entries {
		value, errs := k.decode(overlay(clusterTree, e.patch), e.path, e.patch)
		for _, fe := range errs {
			// A fault inherited from clusterStrategy is reported there, once.
			if !clusterFindings.Has(relativeError(fe, e.path)) {
				found.fail(fe)
			}
		}
		out.addRule(e, value)
	}
	return out.done()
}

// decode turns a merged tree into the strategy and validates it; patch is
// what the entry at path wrote itself.
func (k strategyKind[T]) decode(tree any, path *field.Path, patch any) (*T, field.ErrorList) {
	value := new(T)
	if err := fromTree(tree, value); err != nil {
		return value, field.ErrorList{field.Invalid(path, field.OmitValueType{}, err.Error())}
	}
	if k.schemaDefaults != nil {
		k.schemaDefaults(value)
	}
	return value, k.validate(value, &rules{path: path, written: writtenIn(patch, path)})
}

// writtenIn reports whether patch, the fields an entry at root wrote,
// holds the field at a path (dotted paths only; list elements count as not
// written).
func writtenIn(patch any, root *field.Path) func(*field.Path) bool {
	prefix := root.String() + "."
	return func(p *field.Path) bool {
		node := patch
		for seg := range strings.SplitSeq(strings.TrimPrefix(p.String(), prefix), ".") {
			obj, ok := node.(map[string]any)
			if !ok {
				return false
			}
			if node, ok = obj[seg]; !ok {
				return false
			}
		}
		return true
	}
}

// addRule compiles e's selector and appends the rule, or records why it cannot be used.
func (out *compiled[V]) addRule(e nodeEntry, value V) {
	selectorPath := e.path.Child("nodeSelector")
	selector, empty, errs := compileSelector(e.selector, selectorPath)
	if len(errs) > 0 {
		out.found.fail(errs...)
		return
	}
	if empty && out.found.warning() {
		out.found.warnings = append(out.found.warnings, fmt.Sprintf(
			"%s: {} matches every node, so no later entry can ever apply; put these values in %s instead",
			selectorPath, emptySelectorHint(e.path)))
	}
	out.section.rules = append(out.section.rules, rule[V]{
		name: e.name, selector: selector, value: value})
}

func emptySelectorHint(entryPath *field.Path) string {
	if strings.HasPrefix(entryPath.String(), fieldNodeConfigs) {
		return "the top-level applications"
	}
	return "clusterStrategy"
}

// relativeErrors indexes errs by their text below prefix.
func relativeErrors(errs field.ErrorList, prefix *field.Path) sets.Set[string] {
	out := sets.New[string]()
	for _, fe := range errs {
		out.Insert(relativeError(fe, prefix))
	}
	return out
}

func relativeError(fe *field.Error, prefix *field.Path) string {
	return strings.TrimPrefix(fe.Field, prefix.String()) + "\x00" + fe.ErrorBody()
}
