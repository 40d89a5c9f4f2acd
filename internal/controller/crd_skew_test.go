package controller

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

const skewPath = "resourceQOSStrategy.lsClass.memoryQOS.pageCacheLimitPercent"

// pruningCRD is a fake apiserver whose NodeSLO CRD drops pageCacheLimitPercent
// while *drops is true, as Koordinator v1.8.0's does; it counts the dry runs.
func pruningCRD(t *testing.T, drops *bool, dryRuns *int) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := slov1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	return fake.NewClientBuilder().WithScheme(scheme).WithInterceptorFuncs(interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			*dryRuns++
			if err := c.Create(ctx, obj, opts...); err != nil {
				return err
			}
			if slo, ok := obj.(*slov1alpha1.NodeSLO); ok && *drops {
				if q := slo.Spec.ResourceQOSStrategy; q != nil && q.LSClass != nil && q.LSClass.MemoryQOS != nil {
					q.LSClass.MemoryQOS.PageCacheLimitPercent = nil
				}
			}
			return nil
		},
	}).Build()
}

// The dry run is made once per configuration, again every recheck interval
// while a field is dropped, and not at all between; an upgraded CRD ends
// the rechecks.
func TestCRDSkewDryRunsOncePerConfigurationAndRechecks(t *testing.T) {
	drops, dryRuns := true, 0
	s := newCRDSkew(pruningCRD(t, &drops, &dryRuns), events.NewFakeRecorder(10), time.Minute)
	cfg := sloconfig.Load(map[string]string{string(sloconfig.KeyResourceQOS): `{"clusterStrategy": {"lsClass": ` +
		`{"memoryQOS": {"enable": true, "pageCacheLimitPercent": 50}}}}`}, nil)
	start := time.Now()

	dropped, err := s.droppedFor(t.Context(), cfg, nil, start)
	if err != nil || len(dropped) != 1 || dropped[0] != skewPath || dryRuns != 1 {
		t.Fatalf("first look: %q, %v after %d dry runs; want [%s] after 1", dropped, err, dryRuns, skewPath)
	}
	if s.due(cfg, start.Add(30*time.Second)) {
		t.Error("a dry run is due before the recheck interval")
	}
	if got := s.nextAt(); !got.Equal(start.Add(time.Minute)) {
		t.Errorf("next dry run at %v, want one interval after the first", got)
	}
	if again, _ := s.droppedFor(t.Context(), cfg, nil, start.Add(30*time.Second)); len(again) != 1 || dryRuns != 1 {
		t.Errorf("before the interval: %q after %d dry runs; want the known field and no dry run", again, dryRuns)
	}

	drops = false // the CRD is upgraded
	upgraded, err := s.droppedFor(t.Context(), cfg, nil, start.Add(time.Minute))
	if err != nil || upgraded != nil || dryRuns != 2 {
		t.Fatalf("after the upgrade: %q, %v after %d dry runs; want none dropped after 2", upgraded, err, dryRuns)
	}
	if s.due(cfg, start.Add(time.Hour)) || !s.nextAt().IsZero() {
		t.Error("with no field dropped, no recheck is due")
	}
	other := sloconfig.Load(nil, nil)
	if !s.due(other, start.Add(time.Minute)) {
		t.Error("another configuration is dry-run at once")
	}
}

// A change of the NodeSLO CRD (crd_watch.go) makes a dry run due at once,
// even when nothing was dropped (no recheck pending), and once more
// crdSettle later: a CRD replaced by an older one under a running manager
// is found out.
func TestCRDSkewDryRunsAgainWhenTheCRDChanged(t *testing.T) {
	drops, dryRuns := false, 0
	s := newCRDSkew(pruningCRD(t, &drops, &dryRuns), events.NewFakeRecorder(10), time.Minute)
	cfg := sloconfig.Load(map[string]string{string(sloconfig.KeyResourceQOS): `{"clusterStrategy": {"lsClass": ` +
		`{"memoryQOS": {"enable": true, "pageCacheLimitPercent": 50}}}}`}, nil)
	start := time.Now()
	if dropped, err := s.droppedFor(t.Context(), cfg, nil, start); err != nil || dropped != nil {
		t.Fatalf("this project's CRD: %q, %v; want nothing dropped", dropped, err)
	}
	if s.due(cfg, start.Add(time.Hour)) {
		t.Fatal("with nothing dropped and the CRD unchanged, a dry run is due")
	}

	drops = true // Koordinator v1.8.0's CRD installed over it
	s.crdChanged()
	if !s.due(cfg, start.Add(time.Second)) {
		t.Fatal("the CRD changed, and no dry run is due")
	}
	dropped, err := s.droppedFor(t.Context(), cfg, nil, start.Add(time.Second))
	if err != nil || len(dropped) != 1 || dropped[0] != skewPath || dryRuns != 2 {
		t.Fatalf("after the downgrade: %q, %v after %d dry runs; want [%s] after 2", dropped, err, dryRuns, skewPath)
	}
	if s.due(cfg, start.Add(2*time.Second)) {
		t.Error("a dry run is due again before the CRD settled")
	}
	if got := s.nextAt(); !got.Equal(start.Add(time.Second + crdSettle)) {
		t.Errorf("next dry run at %v, want crdSettle after the change's", got)
	}
	if again, err := s.droppedFor(t.Context(), cfg, nil, start.Add(time.Second+crdSettle)); err != nil ||
		len(again) != 1 || dryRuns != 3 {
		t.Fatalf("the second look: %q, %v after %d dry runs; want the field after 3", again, err, dryRuns)
	}
	if s.due(cfg, start.Add(time.Second+crdSettle+time.Millisecond)) {
		t.Error("a dry run is still due after the two the change asked for")
	}
}
