package rulecases

import (
	"strconv"
	"strings"
)

// The builders below turn one rule as docs/nodeslo-api.md states it ("0..100",
// "one of cpuset, cfsQuota") into the cases that test its edges.

// between tests both ends of lo..hi: each bound accepted, one past it rejected.
func between(s Section, path string, lo, hi int64) []Case {
	return []Case{edge(s, path, lo, lo-1), edge(s, path, hi, hi+1)}
}

// atLeast tests a lower bound lo, inclusive.
func atLeast(s Section, path string, lo int64) []Case {
	return []Case{edge(s, path, lo, lo-1)}
}

// above tests a lower bound lo, exclusive.
func above(s Section, path string, lo int64) []Case {
	return []Case{edge(s, path, lo+1, lo)}
}

// oneOf tests an enum: every allowed value is accepted, bad is rejected.
func oneOf(s Section, path, bad string, allowed ...string) []Case {
	cases := make([]Case, len(allowed))
	for i, v := range allowed {
		cases[i] = Case{Rule: Rule{s, snippet(path, ""), path}, OK: strconv.Quote(v), Bad: strconv.Quote(bad)}
	}
	return cases
}

// lessThan tests "path < other" with other set to otherValue beside it.
func lessThan(s Section, path, other string, otherValue int64) Case {
	sibling := strconv.Quote(other) + ": " + strconv.FormatInt(otherValue, 10)
	return Case{Rule: Rule{s, snippet(path, sibling), path},
		OK: strconv.FormatInt(otherValue-1, 10), Bad: strconv.FormatInt(otherValue, 10)}
}

// edge is one integer case.
func edge(s Section, path string, ok, bad int64) Case {
	return Case{Rule: Rule{s, snippet(path, ""), path}, OK: strconv.FormatInt(ok, 10), Bad: strconv.FormatInt(bad, 10)}
}

// differ lists values the engine rejects at path although the CRD admits
// them; ok is a value both accept.
func differ(s Section, path, reason, ok string, bad ...string) []Difference {
	out := make([]Difference, len(bad))
	for i, b := range bad {
		out[i] = Difference{Case: Case{Rule: Rule{s, snippet(path, ""), path}, OK: ok, Bad: b}, Reason: reason}
	}
	return out
}

// snippet is the JSON object that sets the field at path to %s, with the
// members in siblings (JSON, may be empty) beside it. A segment of path
// ending in [0] is a list holding one object.
func snippet(path, siblings string) string {
	segments := strings.Split(path, ".")
	last := len(segments) - 1
	members := strconv.Quote(segments[last]) + ": %s"
	if siblings != "" {
		members = siblings + ", " + members
	}
	out := "{" + members + "}"
	for i := last - 1; i >= 0; i-- {
		name, isList := strings.CutSuffix(segments[i], "[0]")
		if isList {
			judged := ""
			if i == last-1 {
				judged = segments[last]
			}
			out = "[" + withRequired(out, name, judged) + "]"
		}
		out = "{" + strconv.Quote(name) + ": " + out + "}"
	}
	return out
}

// requiredMembers are the members an element of a list must have for the
// engine to accept it at all (koordlet cannot place a block without its
// type and name; docs/behaviour.md#bad-input), by list name.
var requiredMembers = map[string][][2]string{
	"blocks": {{"name", `"sda"`}, {"type", `"device"`}},
}

// withRequired adds list's required members to the element object obj,
// except the one the case judges.
func withRequired(obj, list, judged string) string {
	for _, m := range requiredMembers[list] {
		if m[0] != judged {
			obj = "{" + strconv.Quote(m[0]) + ": " + m[1] + ", " + strings.TrimPrefix(obj, "{")
		}
	}
	return obj
}

// named gives each host application case the name every application needs.
func named(cases []Case) []Case {
	for i := range cases {
		cases[i].Snippet = `{"name": "app", ` + strings.TrimPrefix(cases[i].Snippet, "{")
	}
	return cases
}
