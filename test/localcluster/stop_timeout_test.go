package localcluster

import (
	"errors"
	"io/fs"
	"path/filepath"
	"testing"
)

// TestStartGivesEachComponentTheLongerStopTimeout guards the teardown of every
// envtest suite: envtest's Start replaces a component's own StopTimeout
// with the environment's, so a longer timeout given to kube-apiserver alone was
// silently cut back to 20 s, and a slow shutdown failed a green suite.
//
// It runs envtest's own Start on the environment Start builds, with binaries
// that do not exist: Start sets the components' timeouts, then fails to
// launch etcd. No control plane is needed to read what Start left in the two
// fields, and a Start that set them only after launching a process would
// leave them unset here and fail the test rather than pass it.
func TestStartGivesEachComponentTheLongerStopTimeout(t *testing.T) {
	scratch := t.TempDir()
	// envtest makes etcd's data directory in the system's; keep it in ours.
	t.Setenv("TMPDIR", scratch)
	missing := filepath.Join(scratch, "no-binaries")
	// The per-binary overrides win over KUBEBUILDER_ASSETS, which make test sets.
	t.Setenv("TEST_ASSET_ETCD", filepath.Join(missing, "etcd"))
	t.Setenv("TEST_ASSET_KUBE_APISERVER", filepath.Join(missing, "kube-apiserver"))
	t.Setenv("USE_EXISTING_CLUSTER", "")

	for name, opts := range map[string]Options{
		"plain": {},
		"etcd data kept, extra flags": {
			EtcdDataDir:    t.TempDir(),
			EtcdFlags:      map[string]string{"quota-backend-bytes": "1"},
			APIServerFlags: map[string]string{"v": "1"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			opts.AssetsDir, opts.CRDDir = missing, "../../config/crd/bases"
			env := newEnvironment(opts, t.TempDir())
			_, err := env.Start()
			if err == nil {
				_ = env.Stop()
				t.Fatal("envtest started a control plane from binaries that do not exist")
			}
			if !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("envtest's Start failed before it launched etcd, so the timeouts say nothing: %v", err)
			}
			if got := env.ControlPlane.APIServer.StopTimeout; got != controlPlaneStopTimeout {
				t.Errorf("kube-apiserver's stop timeout is %s, want %s", got, controlPlaneStopTimeout)
			}
			if got := env.ControlPlane.Etcd.StopTimeout; got != controlPlaneStopTimeout {
				t.Errorf("etcd's stop timeout is %s, want %s", got, controlPlaneStopTimeout)
			}
		})
	}
}
