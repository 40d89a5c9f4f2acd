package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Who wrote while kube-apiserver was profiled, in its profiles' names.
const (
	writerFloor   = "floor"
	writerManager = "manager"
)

// profilesAPIServer reports whether phase takes kube-apiserver's CPU
// profile (BENCH_CPU_PROFILE): cold and change-all, the two phases held
// against the floor at 10,000 nodes, and restart.
func (b *bench) profilesAPIServer(phase string) bool {
	return b.cpuProfileSeconds > 0 && (phase == phaseCold || phase == phaseChangeAll || phase == phaseRestart)
}

// profilesManager reports whether phase takes the manager's CPU profile:
// change-all, the steady work per write, and restart.
func (b *bench) profilesManager(phase string) bool {
	return b.cpuProfileSeconds > 0 && (phase == phaseChangeAll || phase == phaseRestart)
}

// profileAPIServerFor starts kube-apiserver's CPU profile of phase while
// writer writes, into apiserver-<regime>-<phase>-<writer>.pprof (the
// manager's with the repetition); nil when the phase takes none.
func (b *bench) profileAPIServerFor(ctx context.Context, r regime, rep int, phase, writer string) <-chan error {
	if !b.profilesAPIServer(phase) {
		return nil
	}
	name := "apiserver-" + r.name + "-" + phase + "-" + writer
	if writer == writerManager {
		name += b.repetitionSuffix(rep)
	}
	return profileAPIServer(ctx, b.admin, b.cpuProfileSeconds, filepath.Join(b.outDir, name+".pprof"))
}

// profileManagerFor starts the manager's CPU profile of phase into
// cpu-<regime>-<phase>.pprof; fromStart for a manager just started. nil
// when the phase takes none.
func (b *bench) profileManagerFor(ctx context.Context, m *managerProcess, r regime, rep int, phase string,
	fromStart bool) <-chan error {
	if !b.profilesManager(phase) {
		return nil
	}
	path := filepath.Join(b.outDir, "cpu-"+r.name+"-"+phase+b.repetitionSuffix(rep)+".pprof")
	if fromStart {
		return m.profileCPUFromStart(ctx, b.cpuProfileSeconds, path)
	}
	return m.profileCPU(ctx, b.cpuProfileSeconds, path)
}

// awaitProfiles waits until every profile started is written; nil
// channels are profiles not taken.
func awaitProfiles(phase string, profiles ...<-chan error) error {
	for _, done := range profiles {
		if done == nil {
			continue
		}
		if err := <-done; err != nil {
			return fmt.Errorf("taking a CPU profile of %s: %w", phase, err)
		}
	}
	return nil
}

// profileAPIServer takes a CPU profile of kube-apiserver (its
// /debug/pprof, served to the admin) for seconds into path, in the
// background. Beside the manager's profile it shows what the apiserver
// spends on the manager's writes and watches against the floor's.
func profileAPIServer(ctx context.Context, admin *rest.Config, seconds int, path string) <-chan error {
	done := make(chan error, 1)
	go func() {
		cfg := rest.CopyConfig(admin)
		cfg.Timeout = 0
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			done <- err
			return
		}
		profile, err := cs.Discovery().RESTClient().Get().AbsPath("/debug/pprof/profile").
			Param("seconds", strconv.Itoa(seconds)).DoRaw(ctx)
		if err == nil {
			err = os.WriteFile(path, profile, 0o644)
		}
		done <- err
	}()
	return done
}
