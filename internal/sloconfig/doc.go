// Package sloconfig is the pure core of the controller: it parses and
// validates the slo-controller-config ConfigMap, merges it once into an
// immutable Config, and resolves that Config into a NodeSLO spec for any
// node. It does no I/O and holds no client, so the controllers, the kubectl
// plugin and the tests all share it.
package sloconfig
