package controller

import "github.com/nodeslo/nodeslo-controller/internal/storedslo"

// NodeSLOsPath lets the external tests name the path the reconciler writes
// NodeSLOs at, when they check what the manager read.
var NodeSLOsPath = storedslo.Path
