// Package localcluster starts a throw-away Kubernetes control plane (the
// envtest kube-apiserver and etcd) for people and for the end-to-end tests,
// so that `make run-local` and `make test-e2e` stand on the same code.
package localcluster
