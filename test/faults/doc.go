// Package faults holds what the fault tests share: a fleet of realistic
// Nodes, numbered configuration versions and the specs they resolve to,
// the NodeSLOs as stored, and a count of the manager's NodeSLO writes. Its
// own tests (envtest, run by `make test`) fail kube-apiserver, add a second
// writer and burst ConfigMap changes under an in-process manager;
// test/e2e SIGKILLs the bin/manager process.
//
// Every fault test ends with the same two checks, defined here once:
//
//   - No write lost: the NodeSLOs stored are exactly one per node, each
//     with the spec the engine (internal/sloconfig) resolves for its node
//     from the final ConfigMap (docs/behaviour.md#lifecycle).
//   - No write doubled: per node, the changes that reached it are the
//     configuration versions the manager put in force during the test that
//     changed the node's resolved spec, plus the spec edits another writer
//     made to its NodeSLO. The manager may write a node at most that many
//     times, and each of its writes must change the spec (a write that
//     changes nothing is redundant). Its writes are counted twice over: the
//     spec changes etcd kept (metadata.generation, which the apiserver
//     raises on every spec change of a NodeSLO and on nothing else, so the
//     count survives any restart) less the other writer's, and, when the
//     manager runs in-process, the successful write requests it sent (on its
//     HTTP transport). After a single change each changed node must have
//     been written exactly once.
package faults
