// Package controller holds the three controllers of nodeslo-controller
// and wires them into a manager (setup.go):
//
//   - the config-cache controller (configcache_controller.go) loads the
//     slo-controller-config ConfigMap through the sloconfig engine,
//     reports its problems, and hands each load to the rollout controller
//     (configmap_load.go);
//   - the rollout controller (rollout_controller.go, for the
//     NodeSLORollout of the ConfigMap's name) decides which configuration
//     is in force and which nodes its staged rollout holds
//     (rollout_plan.go; rollout_revert.go: the health gate's revert;
//     decisions in internal/rollout), keeps the revision history
//     (rollout_history.go), writes the NodeSLORollout's status
//     (rollout_object.go), finds the fields the installed CRD drops
//     (crd_skew.go), and publishes all of it as one Snapshot (snapshot.go);
//   - the NodeSLO reconciler (nodeslo_controller.go) keeps one NodeSLO per
//     Node with what the Snapshot resolves for that node, except for the
//     nodes a rollout's gate holds; what is stored, and how it is read and
//     written, is internal/storedslo's.
//
// They signal each other over named channels (signals in setup.go); the
// health gate's watch (health_watch.go) is a Runnable of the manager.
// The controllers are thin: every decision about what a spec should be
// lives in internal/sloconfig, and when it reaches a node in internal/rollout.
package controller
