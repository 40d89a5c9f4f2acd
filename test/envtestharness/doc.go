// Package envtestharness is what every envtest suite of the project stands
// on: the control plane (kube-apiserver and etcd) with the project's CRDs,
// the check that its binaries are there, the manager's ServiceAccount bound
// to config/rbac, and one set of Gomega timeouts. The suites then differ
// only in what they test. Only tests import it.
package envtestharness
