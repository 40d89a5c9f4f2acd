// Package controller holds the two controllers of nodeslo-controller and
// wires them into a manager:
//
//   - the config-cache controller loads the slo-controller-config ConfigMap
//     through the sloconfig engine, publishes the result in a Store and, when
//     the effective configuration changed, has every node reconciled again.
//     One reconcile reads the ConfigMap, loads it, plans the staged rollout
//     (internal/rollout, docs/rollout.md), persists the rollout's record
//     (configcache_record.go: the plan's only client writes) and publishes
//     the configuration with the rollout's Gate;
//   - the NodeSLO reconciler keeps one NodeSLO per Node, with the spec the
//     configuration in force resolves for that node, except for the nodes
//     a rollout's Gate holds.
//
// Both are thin: every decision about what a spec should be lives in
// internal/sloconfig, and when it reaches a node in internal/rollout.
package controller
