package faultproxy

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"
)

// The apiserver's verbs, as Match.Verbs names them: a watch is a list
// with watch=true, an update a PUT.
const (
	VerbGet              = "get"
	VerbList             = "list"
	VerbWatch            = "watch"
	VerbCreate           = "create"
	VerbUpdate           = "update"
	VerbPatch            = "patch"
	VerbDelete           = "delete"
	VerbDeleteCollection = "deletecollection"
)

// WriteVerbs are the verbs of every request that changes an object.
var WriteVerbs = []string{VerbCreate, VerbUpdate, VerbPatch, VerbDelete, VerbDeleteCollection}

// AnySubresource, as Match.Subresource, matches the resource's own
// requests and those of every subresource alike.
const AnySubresource = "*"

// Match selects requests by the apiserver's reading of them. An empty
// field matches anything, but Subresource: "" matches only requests to the
// resource itself (not .../status), as RBAC and the audit policy read it.
type Match struct {
	// Verbs are the apiserver's: get, list, watch, create, update, patch,
	// delete, deletecollection.
	Verbs []string
	// Resource is the plural lower-case name (nodeslos, configmaps, leases).
	Resource string
	// Subresource is status, say, or AnySubresource.
	Subresource string
	// Namespace and Name of the object ("" for any).
	Namespace, Name string
	// User is the name the apiserver knows the client by
	// (system:serviceaccount:ns:name), as the audit log records it.
	User string
}

// Rule is a fault and the requests it hits: those that Match selects,
// thinned by the selection fields, which all apply.
type Rule struct {
	Match
	Fault Fault
	// Probability faults each matching request with this chance (0 means 1).
	Probability float64
	// Every faults only the Nth, 2Nth, ... matching request (0 means each).
	Every int
	// From and Until bound the time during which the rule faults (zero:
	// unbounded); matches outside are not counted.
	From, Until time.Time
	// Limit stops the rule after that many faults (0: no limit).
	Limit int
}

// validate refuses a rule whose fields cannot mean anything.
func (r Rule) validate() error {
	switch {
	case r.Fault == nil:
		return errors.New("faultproxy: a rule needs a Fault")
	case r.Probability < 0 || r.Probability > 1:
		return fmt.Errorf("faultproxy: Probability %v is not in [0, 1]", r.Probability)
	case r.Every < 0 || r.Limit < 0:
		return errors.New("faultproxy: Every and Limit must not be negative")
	}
	if _, stalls := r.Fault.(*stallFault); stalls && !slices.Equal(r.Verbs, []string{VerbWatch}) {
		return errors.New("faultproxy: a watch stall needs Verbs: []string{VerbWatch}")
	}
	return nil
}

// ActiveRule is a rule added to a proxy: it counts what it matched and
// faulted, and is removed with Remove.
type ActiveRule struct {
	rule    Rule
	removal func(*ActiveRule)

	mu      sync.Mutex
	matched int
	faulted int
}

// Matched returns how many requests the rule matched while in force
// (faulted or not).
func (a *ActiveRule) Matched() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.matched
}

// Faulted returns how many requests the rule faulted.
func (a *ActiveRule) Faulted() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.faulted
}

// Remove stops the rule; requests it already holds (a delay, a stall) run
// their course.
func (a *ActiveRule) Remove() {
	a.removal(a)
}

// selects reports whether req is of the rule's kind, learning the client's
// identity (userOf) only when the rule names one and the rest matched.
func (m Match) selects(ctx context.Context, req Request, userOf func(context.Context, Request) (string, error)) bool {
	if len(m.Verbs) > 0 && !slices.Contains(m.Verbs, req.Verb) {
		return false
	}
	if m.Resource != "" && m.Resource != req.Resource {
		return false
	}
	if m.Subresource != AnySubresource && m.Subresource != req.Subresource {
		return false
	}
	if (m.Namespace != "" && m.Namespace != req.Namespace) || (m.Name != "" && m.Name != req.Name) {
		return false
	}
	if m.User == "" {
		return true
	}
	user, err := userOf(ctx, req)
	return err == nil && user == m.User
}

// fires counts one matching request at now and decides whether to fault it.
func (a *ActiveRule) fires(now time.Time) bool {
	r := a.rule
	if (!r.From.IsZero() && now.Before(r.From)) || (!r.Until.IsZero() && !now.Before(r.Until)) {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.matched++
	switch {
	case r.Limit > 0 && a.faulted >= r.Limit:
		return false
	case r.Every > 1 && a.matched%r.Every != 0:
		return false
	case r.Probability > 0 && rand.Float64() >= r.Probability: //nolint:gosec // a test's dice, not a secret
		return false
	}
	a.faulted++
	return true
}
