// Package localcluster starts a throw-away Kubernetes control plane (the
// envtest kube-apiserver and etcd) for people, for the benchmark and for
// every test suite (through test/envtestharness), so that `make run-local`,
// `make test` and `make test-e2e` stand on the same code.
package localcluster
