package controller

// NodeSLOsPath lets the external tests name the path the reconciler writes
// NodeSLOs at, when they check what the manager read.
var NodeSLOsPath = nodeSLOsPath
