// Package release tests the files `make release` writes by installing them
// as a user would: the kubectl plugin with krew from the generated manifest,
// the chart package with helm on a local control plane, and the checksums
// with the archives they name. `make test-release VERSION=v0.3.0` makes the
// release and runs them (build tag release); they read:
//
//	RELEASE_DIR         the release's directory (dist/release)
//	RELEASE_VERSION     the version it was made for
//	RELEASE_IMAGE       the manager image it must name (IMG)
//	KREW, HELM          the krew and helm binaries
//	KUBEBUILDER_ASSETS  kube-apiserver, etcd and kubectl
package release
