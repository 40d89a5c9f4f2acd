// Package storedslo is the one place that knows how the controller stores
// NodeSLOs and tells what a stored one holds
// (docs/behaviour.md#what-the-controller-caches). The NodeSLO reconciler
// asks it three things: what is stored for a node (Store.Get), whether
// that holds what the configuration resolves (NodeSLO.Holds), and to write
// or delete it (Store.Write, Store.Delete); a rollout decision asks what is
// stored for every node at once (Store.List). Behind that small interface:
//
//   - NodeSLOs are cached and watched as metadata only; every write stamps
//     the SpecDigestAnnotation, so that a NodeSLO whose annotation names its
//     current generation is decided on the digest, and only any other (a
//     hand edit, an older writer) is read whole with one GET, and the
//     SpecWrittenAnnotation, the write's time for the health gate
//     (annotations.go: both annotations and their values);
//   - writes take the apiserver's answer as metadata only (writer.go);
//   - the echo of the controller's own write is dropped before it costs a
//     reconcile (echo.go);
//   - cached NodeSLOs share their annotation maps (cache.go).
//
// What the installed CRD drops is not learned here: the rollout
// controller finds it once per configuration and publishes it with the
// configuration, and the reconciler hands it in as part of the
// sloconfig.StoredForm it wants.
package storedslo
