// Package sloconfig is the pure core of the controller: it parses and
// validates the slo-controller-config ConfigMap, merges it once into an
// immutable Config, and resolves that Config into a NodeSLO spec for any
// node. It does no I/O and holds no client, so the controllers, the kubectl
// plugin and the tests all share it.
//
// A key's value goes through these steps, one file each:
//
//   - jsontree.go: parse into a tree that remembers where every value
//     starts, so that errors name a line and column;
//   - schema.go, suggest.go, repeated.go: compare the tree with the Go
//     types, reporting type errors and unknown fields (with the closest
//     known name), merging repeated fields as encoding/json does, and turn
//     it into plain JSON values with canonical field names (parse.go does
//     the document level: clusterStrategy, node entries);
//   - echo.go: what messages may quote, and how many a key reports;
//   - overlay.go, defaults.go: overlay the built-in default, the cluster
//     strategy and each node strategy (objects key by key, lists whole);
//   - rules.go, validate_*.go: validate every merged value, so that
//     cross-field rules see the numbers in force;
//   - selectors.go: validate node selectors and compile them once into
//     apimachinery labels.Selectors;
//   - compile.go, compile_hostapp.go, section.go: the compiled sections;
//   - load.go: states per key, last-good and frozen values;
//   - resolve.go, bandwidth.go: the spec of one node;
//   - fingerprint.go, equality.go: change detection.
//
// Around them: node_inputs.go defines what a Node contributes to its
// NodeSLO (Node, NodeOf, SameInputs), for every place that
// trims or compares a node; report_lines.go renders the reports as
// the lines and Event notes people read (validate, the webhook, Events),
// the retired rollout key's lines (rollout.RetiredKeyLines) last;
// reach.go counts the nodes each node entry matches and applies to (the
// nodeslo_strategy_nodes metric, the warning about an entry that matches
// no node).
//
// The strategy (the NodeSLORollout's spec.strategy) is not a section of
// the spec: internal/rollout compiles it from its API types
// (rollout.LoadStrategy), reporting through document.go's Findings with
// CompileLabelSelector and Echo. The retired rollout key (KeyRollout) only
// gets an error; internal/rollout's tests still write strategies as its
// JSON, which DecodeDocument reads with this package's parser.
package sloconfig
