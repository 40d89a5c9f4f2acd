// Package controller holds the two controllers of nodeslo-controller and
// wires them into a manager:
//
//   - the config-cache controller loads the slo-controller-config ConfigMap
//     through the sloconfig engine, publishes the result in a Store and, when
//     the effective configuration changed, has every node reconciled again;
//   - the NodeSLO reconciler keeps one NodeSLO per Node, with the spec the
//     configuration in force resolves for that node.
//
// Both are thin: every decision about what a spec should be lives in
// internal/sloconfig.
package controller
