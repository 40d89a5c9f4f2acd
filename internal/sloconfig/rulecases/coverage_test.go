package rulecases

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// crdFile is the CRD that `make manifests` generates from the markers in api/slo/v1alpha1.
var crdFile = filepath.Join("..", "..", "..", "config", "crd", "bases", "slo.koordinator.sh_nodeslos.yaml")

// unreachable lists the edges of the CRD that no valid NodeSLO can show,
// so that no case can accept the value at the bound.
var unreachable = map[string]string{
	"spec.resourceUsedThresholdWithBE.memoryEvictLowerPercent maximum": "memoryEvictThresholdPercent " +
		"(default 70, at most 100) must exceed it, so 100 is never valid; the case with 99 and 101 tests the edge",
}

// A constraint of the generated CRD: a bound, an enum, a pattern or a CEL
// rule, at a property path with list items written [0], as the cases write them.
type constraint struct {
	path, kind string
	schema     *apiextensionsv1.JSONSchemaProps
	rule       apiextensionsv1.ValidationRule
}

func (c constraint) String() string { return c.path + " " + c.kind }

// Every constraint the markers put into the CRD must be tested by a case at
// its edges; otherwise the CRD and the engine could drift apart there
// without the agreement test noticing.
func TestEveryConstraintOfTheCRDHasCases(t *testing.T) {
	constraints := crdConstraints(t)
	if len(constraints) < 100 {
		t.Fatalf("found only %d constraints in %s: is the walk broken?", len(constraints), crdFile)
	}
	for key := range unreachable {
		if !slices.ContainsFunc(constraints, func(c constraint) bool { return c.String() == key }) {
			t.Errorf("unreachable lists %q, which is no constraint of the CRD any more", key)
		}
	}
	accepted, rejected := valuesByPath()
	for _, c := range constraints {
		ok, bad := accepted[c.path], rejected[c.path]
		var missing []string
		switch c.kind {
		case "minimum", "maximum", "int32 minimum", "int32 maximum":
			inside, outside := edges(c)
			if _, skip := unreachable[c.String()]; !skip && !slices.Contains(ok, inside) {
				missing = append(missing, "a case accepting "+inside)
			}
			if !slices.Contains(bad, outside) {
				missing = append(missing, "a case rejecting "+outside)
			}
		case "enum":
			for _, v := range c.schema.Enum {
				if !slices.Contains(ok, string(v.Raw)) {
					missing = append(missing, "a case accepting "+string(v.Raw))
				}
			}
			if !slices.ContainsFunc(bad, func(v string) bool { return !isEnumValue(c.schema, v) }) {
				missing = append(missing, "a case rejecting a value outside the enum")
			}
		case "pattern":
			if len(ok) == 0 || len(bad) == 0 {
				missing = append(missing, "a case accepting and rejecting a value")
			}
		default: // a CEL rule
			if !hasCrossFieldCase(c) {
				missing = append(missing, fmt.Sprintf("a case setting all of %v", celFields(c.rule.Rule)))
			}
		}
		for _, m := range missing {
			t.Errorf("%s: no case in rulecases tests it: add %s", c, m)
		}
	}
}

// Every case must name a property of the CRD: a misspelt path would be
// pruned by the apiserver and only warned about by the engine.
func TestEveryCaseNamesAPropertyOfTheCRD(t *testing.T) {
	properties := map[string]bool{}
	walk(crd(t), "spec", func(path string, _ *apiextensionsv1.JSONSchemaProps) { properties[path] = true })
	for _, c := range EngineCases() {
		if !properties[c.SpecPath()] {
			t.Errorf("%s: not a property of the CRD (snippet %s)", c.SpecPath(), c.Snippet)
		}
	}
}

func crd(t *testing.T) *apiextensionsv1.JSONSchemaProps {
	t.Helper()
	raw, err := os.ReadFile(crdFile)
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(raw, &crd); err != nil {
		t.Fatalf("%s: %v", crdFile, err)
	}
	if len(crd.Spec.Versions) != 1 || crd.Spec.Versions[0].Schema == nil {
		t.Fatalf("%s: want one version with a schema", crdFile)
	}
	spec, ok := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	if !ok {
		t.Fatalf("%s: no spec property", crdFile)
	}
	return &spec
}

// walk calls visit for every property below schema, depth first.
func walk(schema *apiextensionsv1.JSONSchemaProps, path string, visit func(string, *apiextensionsv1.JSONSchemaProps)) {
	visit(path, schema)
	for name, p := range schema.Properties {
		walk(&p, path+"."+name, visit)
	}
	if schema.Items != nil && schema.Items.Schema != nil {
		walk(schema.Items.Schema, path+"[0]", visit)
	}
}

func crdConstraints(t *testing.T) []constraint {
	var out []constraint
	walk(crd(t), "spec", func(path string, s *apiextensionsv1.JSONSchemaProps) {
		add := func(kind string, set bool) {
			if set {
				out = append(out, constraint{path: path, kind: kind, schema: s})
			}
		}
		add("minimum", s.Minimum != nil)
		add("maximum", s.Maximum != nil)
		add("enum", len(s.Enum) > 0)
		// The range of an int32 is a bound too, where no marker narrows it.
		add("int32 minimum", s.Format == "int32" && s.Minimum == nil)
		add("int32 maximum", s.Format == "int32" && s.Maximum == nil)
		add("pattern", s.Pattern != "")
		for _, r := range s.XValidations {
			out = append(out, constraint{path: path, kind: "rule " + strconv.Quote(r.Message), schema: s, rule: r})
		}
		// Constraints this test does not know how to check must not pass unseen.
		if s.MinLength != nil || s.MaxLength != nil || s.MinItems != nil || s.MaxItems != nil ||
			s.MinProperties != nil || s.MaxProperties != nil || s.MultipleOf != nil || s.UniqueItems {
			t.Errorf("%s: a constraint this test cannot check yet; teach it", path)
		}
	})
	slices.SortFunc(out, func(a, b constraint) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// valuesByPath indexes the values every case accepts and rejects by the
// field's spec path. A difference's Bad is accepted by the CRD.
func valuesByPath() (accepted, rejected map[string][]string) {
	accepted, rejected = map[string][]string{}, map[string][]string{}
	for _, c := range Cases {
		accepted[c.SpecPath()] = append(accepted[c.SpecPath()], compactJSON(c.OK))
		rejected[c.SpecPath()] = append(rejected[c.SpecPath()], compactJSON(c.Bad))
	}
	for _, d := range EngineStricter {
		accepted[d.SpecPath()] = append(accepted[d.SpecPath()], compactJSON(d.OK), compactJSON(d.Bad))
	}
	return accepted, rejected
}

// edges returns the value just inside a bound and the one just outside it.
func edges(c constraint) (inside, outside string) {
	s := c.schema
	switch c.kind {
	case "int32 minimum":
		return strconv.FormatInt(math.MinInt32, 10), strconv.FormatInt(math.MinInt32-1, 10)
	case "int32 maximum":
		return strconv.FormatInt(math.MaxInt32, 10), strconv.FormatInt(math.MaxInt32+1, 10)
	case "minimum":
		lo := int64(*s.Minimum)
		if s.ExclusiveMinimum {
			return strconv.FormatInt(lo+1, 10), strconv.FormatInt(lo, 10)
		}
		return strconv.FormatInt(lo, 10), strconv.FormatInt(lo-1, 10)
	}
	hi := int64(*s.Maximum)
	if s.ExclusiveMaximum {
		return strconv.FormatInt(hi-1, 10), strconv.FormatInt(hi, 10)
	}
	return strconv.FormatInt(hi, 10), strconv.FormatInt(hi+1, 10)
}

func isEnumValue(s *apiextensionsv1.JSONSchemaProps, v string) bool {
	return slices.ContainsFunc(s.Enum, func(e apiextensionsv1.JSON) bool { return compactJSON(string(e.Raw)) == v })
}

var celField = regexp.MustCompile(`self\.(\w+)`)

// celFields lists the fields a CEL rule reads.
func celFields(rule string) []string {
	var out []string
	for _, m := range celField.FindAllStringSubmatch(rule, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// hasCrossFieldCase reports whether a case judges one of the fields of c's
// rule in a snippet that sets all of them.
func hasCrossFieldCase(c constraint) bool {
	fields := celFields(c.rule.Rule)
	return slices.ContainsFunc(Cases, func(k Case) bool {
		parent, leaf, _ := cutLast(k.SpecPath())
		if parent != c.path || !slices.Contains(fields, leaf) {
			return false
		}
		for _, f := range fields {
			if !strings.Contains(k.Snippet, strconv.Quote(f)+":") {
				return false
			}
		}
		return true
	})
}

func cutLast(path string) (parent, leaf string, ok bool) {
	i := strings.LastIndex(path, ".")
	if i < 0 {
		return "", path, false
	}
	return path[:i], path[i+1:], true
}

// compactJSON normalises a JSON literal so that values compare by content.
func compactJSON(s string) string {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}
