// Package controller holds the two controllers of nodeslo-controller and
// wires them into a manager:
//
//   - the config-cache controller loads the slo-controller-config ConfigMap
//     through the sloconfig engine, publishes the result in a Store and, when
//     the effective configuration changed, has every node reconciled again;
//     when the ConfigMap asks for a staged rollout it also takes the
//     rollout decision (internal/rollout) over every node, persists its
//     record on the ConfigMap and publishes, with the configuration, the
//     Gate of nodes held (configcache_rollout.go, docs/rollout.md);
//   - the NodeSLO reconciler keeps one NodeSLO per Node, with the spec the
//     configuration in force resolves for that node, except for the nodes
//     a rollout holds.
//
// Both are thin: every decision about what a spec should be lives in
// internal/sloconfig, and when it reaches a node in internal/rollout.
package controller
