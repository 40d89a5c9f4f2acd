// Package controller holds the two controllers of nodeslo-controller and
// wires them into a manager (setup.go):
//
//   - the config-cache controller (configcache_controller.go) loads the
//     slo-controller-config ConfigMap through the sloconfig engine, finds
//     the fields of it the installed CRD drops (crd_skew.go), drives the
//     staged rollout the NodeSLORollout's strategy asks for
//     (rollout_driver.go: plan and record; rollout_history.go: revisions
//     and status; rollout_revert.go: the health gate's revert; decisions
//     in internal/rollout), and
//     publishes all of it as one Snapshot (snapshot.go);
//   - the NodeSLO reconciler (nodeslo_controller.go) keeps one NodeSLO per
//     Node with what the Snapshot resolves for that node, except for the
//     nodes a rollout's gate holds; what is stored, and how it is read and
//     written, is internal/storedslo's.
//
// They signal each other over named channels (signals in setup.go); the
// health gate's watch (health_watch.go) is a Runnable of the manager.
// Both controllers are thin: every decision about what a spec should be
// lives in internal/sloconfig, and when it reaches a node in internal/rollout.
package controller
