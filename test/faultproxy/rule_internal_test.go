package faultproxy

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"
)

// TestDescribeRequest checks that requests read as the apiserver reads
// them: what a rule's Match is compared with.
func TestDescribeRequest(t *testing.T) {
	cases := []struct {
		method, target                               string
		verb, resource, subresource, namespace, name string
	}{
		{"GET", "/api/v1/namespaces/ns/configmaps?watch=true&resourceVersion=5",
			"watch", "configmaps", "", "ns", ""},
		{"GET", "/api/v1/namespaces/ns/configmaps", "list", "configmaps", "", "ns", ""},
		{"PATCH", "/apis/nodeslo.koordinator.sh/v1alpha1/namespaces/ns/nodeslorollouts/r/status",
			"patch", "nodeslorollouts", "status", "ns", "r"},
		{"PUT", "/apis/slo.koordinator.sh/v1alpha1/nodeslos/node-1", "update", "nodeslos", "", "", "node-1"},
		{"POST", "/apis/coordination.k8s.io/v1/namespaces/system/leases", "create", "leases", "", "system", ""},
		{"DELETE", "/apis/slo.koordinator.sh/v1alpha1/nodeslos/node-1", "delete", "nodeslos", "", "", "node-1"},
	}
	for _, c := range cases {
		req, ok := describeRequest(httptest.NewRequest(c.method, c.target, nil))
		if !ok {
			t.Errorf("%s %s: not read as a resource request", c.method, c.target)
			continue
		}
		got := []string{req.Verb, req.Resource, req.Subresource, req.Namespace, req.Name}
		want := []string{c.verb, c.resource, c.subresource, c.namespace, c.name}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s %s: read as %q, want %q", c.method, c.target, got, want)
				break
			}
		}
	}
	if _, ok := describeRequest(httptest.NewRequest("GET", "/apis", nil)); ok {
		t.Error("discovery read as a resource request")
	}
	r := httptest.NewRequest("GET", "/api/v1/namespaces/ns/configmaps", nil)
	r.Header.Set("Authorization", "Bearer abc")
	if req, _ := describeRequest(r); req.token != "abc" {
		t.Errorf("token %q, want abc", req.token)
	}
}

// TestMatchSubresource checks that a Match without Subresource leaves
// .../status alone and AnySubresource takes both.
func TestMatchSubresource(t *testing.T) {
	const things = "things"
	noUser := func(context.Context, Request) (string, error) {
		t.Fatal("looked up the identity for a rule that names none")
		return "", nil
	}
	status, _ := describeRequest(httptest.NewRequest("PATCH", "/apis/g/v1/namespaces/ns/things/x/status", nil))
	object, _ := describeRequest(httptest.NewRequest("PATCH", "/apis/g/v1/namespaces/ns/things/x", nil))
	for _, c := range []struct {
		match          Match
		status, object bool
	}{
		{Match{Resource: things}, false, true},
		{Match{Resource: things, Subresource: "status"}, true, false},
		{Match{Resource: things, Subresource: AnySubresource}, true, true},
		{Match{Resource: "other", Subresource: AnySubresource}, false, false},
		{Match{Verbs: []string{VerbUpdate}, Subresource: AnySubresource}, false, false},
	} {
		if got := c.match.selects(context.Background(), status, noUser); got != c.status {
			t.Errorf("%+v selects the status patch: %v", c.match, got)
		}
		if got := c.match.selects(context.Background(), object, noUser); got != c.object {
			t.Errorf("%+v selects the object's patch: %v", c.match, got)
		}
	}
}

// firings returns, of n matching requests at now, the 1-based numbers of
// those the rule faults.
func firings(rule Rule, n int, now time.Time) []int {
	active := &ActiveRule{rule: rule}
	var fired []int
	for i := 1; i <= n; i++ {
		if active.fires(now) {
			fired = append(fired, i)
		}
	}
	return fired
}

func TestRuleSelection(t *testing.T) {
	now := time.Now()
	for _, c := range []struct {
		name string
		rule Rule
		want []int
	}{
		{"every match", Rule{}, []int{1, 2, 3, 4, 5, 6}},
		{"every third", Rule{Every: 3}, []int{3, 6}},
		{"limited", Rule{Limit: 2}, []int{1, 2}},
		{"every second, limited", Rule{Every: 2, Limit: 2}, []int{2, 4}},
		{"certain", Rule{Probability: 1}, []int{1, 2, 3, 4, 5, 6}},
		{"in its window", Rule{From: now.Add(-time.Second), Until: now.Add(time.Second)}, []int{1, 2, 3, 4, 5, 6}},
		{"before its window", Rule{From: now.Add(time.Second)}, nil},
		{"after its window", Rule{Until: now}, nil},
	} {
		got := firings(c.rule, 6, now)
		if len(got) != len(c.want) {
			t.Errorf("%s: faulted %v, want %v", c.name, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: faulted %v, want %v", c.name, got, c.want)
				break
			}
		}
	}
	// A half chance faults some of 1000 requests and spares some.
	if n := len(firings(Rule{Probability: 0.5}, 1000, now)); n < 350 || n > 650 {
		t.Errorf("a probability of 0.5 faulted %d of 1000", n)
	}
}

func TestRuleValidation(t *testing.T) {
	for _, bad := range []Rule{
		{},
		{Fault: Conflict(), Probability: 1.5},
		{Fault: Conflict(), Every: -1},
		{Fault: StallWatch(time.Second), Match: Match{Verbs: []string{VerbGet}}},
		{Fault: StallWatch(time.Second)},
	} {
		if bad.validate() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if err := (Rule{Fault: StallWatch(time.Second), Match: Match{Verbs: []string{VerbWatch}}}).validate(); err != nil {
		t.Error(err)
	}
}
