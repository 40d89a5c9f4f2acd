package localcluster

import (
	"os"
	"testing"
)

// TestStartGivesEachComponentTheLongerStopTimeout guards the teardown of every
// envtest suite: envtest's Start replaces a component's own StopTimeout
// with the environment's, so a longer timeout given to kube-apiserver alone was
// silently cut back to 20 s, and a slow shutdown failed a green suite.
func TestStartGivesEachComponentTheLongerStopTimeout(t *testing.T) {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		t.Fatal("KUBEBUILDER_ASSETS is not set: run `make test`, or export the directory " +
			"`hack/setup-envtest.sh` prints")
	}
	cluster, err := Start(Options{AssetsDir: assets, CRDDir: "../../config/crd/bases"})
	if err != nil {
		t.Fatalf("starting the control plane: %v", err)
	}
	defer func() {
		if err := cluster.Stop(); err != nil {
			t.Errorf("stopping the control plane: %v", err)
		}
	}()
	if got := cluster.env.ControlPlane.APIServer.StopTimeout; got != controlPlaneStopTimeout {
		t.Errorf("kube-apiserver's stop timeout is %s, want %s", got, controlPlaneStopTimeout)
	}
	if got := cluster.env.ControlPlane.Etcd.StopTimeout; got != controlPlaneStopTimeout {
		t.Errorf("etcd's stop timeout is %s, want %s", got, controlPlaneStopTimeout)
	}
}
