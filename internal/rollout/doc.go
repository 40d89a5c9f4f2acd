// Package rollout decides, as pure code, which nodes a configuration change
// reaches now when the NodeSLORollout's spec.strategy asks for a staged
// rollout (docs/rollout.md#the-strategy). It reads no clock and holds no client: the controller
// gives it the cluster as it is (which nodes' stored NodeSLO differs from
// the target, which are canaries), the persisted Record and the time, and
// gets back the nodes to write, the Record to persist and when to decide
// again.
//
// strategy.go, key.go and key_healthgate.go compile and validate the
// strategy (LoadStrategy: a Key holding the compiled Policy and its
// HealthGate, or the errors with their paths under spec.strategy), with
// sloconfig's parser; strategy.go also words the refusal of the retired
// ConfigMap key (RetiredKeyLines);
// decide.go, schedule.go and order.go take the decision; plan.go wraps it
// for the rollout controller, one Plan per reconcile (the record
// change to persist, the Gate of held nodes to publish, the nodes to
// release, the Events and the metric Figures); memory.go is what the
// controller keeps between two plans (the gate, the echo of its own record
// write); status.go is the Status a plan leaves, which the controller
// writes as the NodeSLORollout's status for `kubectl nodeslo rollout
// status` to print.
// The controller persists and publishes the Plan; nothing here reads or
// writes the cluster.
//
// The state lives in the cluster, never in memory alone:
//
//   - which nodes are still pending is read from the stored NodeSLOs (a
//     node whose stored spec equals the target is done, however it got
//     there) and their stamps: the configuration each was last written
//     from tells a node a gate held, and a step that reaches one without
//     a write writes its stamps alone (Gate.restamp);
//   - the Record (target fingerprint, start time, counts at start, steps
//     taken and when the last one was taken) is persisted by the controller
//     in the NodeSLORollout's typed status.rolloutRecord, before it writes
//     the nodes of a step.
//
// So a restarted manager, or a new leader, reads both and goes on where the
// rollout stood. It never bursts: a step is taken only when the previous
// one is complete (every node it reached stores the target), and a step
// found incomplete (its writes were cut short by the restart) restarts the
// interval in progress, so the first interval after a restart writes at
// most the rest of that step, and the next step waits a full interval.
// At any time at most one step's nodes are reached beyond what the cluster
// showed reached when the interval in progress started.
package rollout
