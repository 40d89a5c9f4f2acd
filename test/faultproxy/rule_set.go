package faultproxy

import (
	"context"
	"slices"
	"sync"
	"time"
)

// ruleSet holds a proxy's rules in the order they were added; every
// request is matched against a snapshot of them, so rules can be added and
// removed while requests pass.
type ruleSet struct {
	mu    sync.Mutex
	rules []*ActiveRule
}

func (s *ruleSet) add(r *ActiveRule) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = append(s.rules, r)
}

func (s *ruleSet) remove(r *ActiveRule) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = slices.DeleteFunc(slices.Clone(s.rules), func(x *ActiveRule) bool { return x == r })
}

func (s *ruleSet) snapshot() []*ActiveRule {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rules
}

// pick returns the first rule, in the order added, that matches req and
// fires for it, or nil: a request gets at most one fault, and rules after
// the one that fired do not count it.
func (s *ruleSet) pick(ctx context.Context, req Request,
	userOf func(context.Context, Request) (string, error)) *ActiveRule {
	now := time.Now()
	for _, r := range s.snapshot() {
		if r.rule.selects(ctx, req, userOf) && r.fires(now) {
			return r
		}
	}
	return nil
}
