package chart

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
)

// diff lists, path by path, where the chart's value (a) differs from
// config/'s (b), e.g.
// `spec.template.spec.containers[0].securityContext.readOnlyRootFilesystem: chart false, config/ true`.
func diff(path string, a, b any) []string {
	mapA, isMapA := a.(map[string]any)
	mapB, isMapB := b.(map[string]any)
	if isMapA && isMapB {
		keys := map[string]bool{}
		for k := range mapA {
			keys[k] = true
		}
		for k := range mapB {
			keys[k] = true
		}
		out := make([]string, 0, len(keys))
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			out = append(out, diff(join(path, k), mapA[k], mapB[k])...)
		}
		return out
	}
	listA, isListA := a.([]any)
	listB, isListB := b.([]any)
	if isListA && isListB && len(listA) == len(listB) {
		out := make([]string, 0, len(listA))
		for i := range listA {
			out = append(out, diff(fmt.Sprintf("%s[%d]", path, i), listA[i], listB[i])...)
		}
		return out
	}
	if reflect.DeepEqual(a, b) {
		return nil
	}
	return []string{fmt.Sprintf("%s: chart %s, config/ %s", path, short(a), short(b))}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// short prints a value as compact JSON ("absent" for a missing one).
func short(v any) string {
	if v == nil {
		return "absent"
	}
	out, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	const limit = 300
	if len(out) > limit {
		return string(out[:limit]) + "..."
	}
	return string(out)
}
