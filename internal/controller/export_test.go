package controller

import "github.com/nodeslo/nodeslo-controller/internal/storedslo"

// NodeSLOsPath lets the external tests name the path the reconciler writes
// NodeSLOs at, when they check what the manager read.
var NodeSLOsPath = storedslo.Path

// MinRequeue lets the external tests move a held clock past the shortest
// requeue the rollout controller asks for (a revert its halt decided).
const MinRequeue = minRequeue
