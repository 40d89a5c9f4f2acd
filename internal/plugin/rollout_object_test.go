package plugin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// writeLog records every write a command sends, and fails the test on any
// but a create or a patch of the NodeSLORollout's spec, under the plugin's
// field manager.
type writeLog struct {
	t      *testing.T
	writes []string
}

func (l *writeLog) funcs() interceptor.Funcs {
	return interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			l.check("create", obj, createOwner(opts))
			return c.Create(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch,
			opts ...client.PatchOption) error {
			l.check("patch", obj, patchOwner(opts))
			body, err := patch.Data(obj)
			if err != nil {
				l.t.Fatal(err)
			}
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(body, &fields); err != nil || !slices.Equal(slices.Sorted(maps.Keys(fields)),
				[]string{"spec"}) {
				l.t.Errorf("a patch of more than the spec: %s", body)
			}
			l.writes[len(l.writes)-1] += " " + string(body)
			return c.Patch(ctx, obj, patch, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			l.t.Errorf("an update of %T", obj)
			return c.Update(ctx, obj, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			l.t.Errorf("a delete of %T", obj)
			return c.Delete(ctx, obj, opts...)
		},
		SubResourceCreate: func(ctx context.Context, c client.Client, sub string, obj, subObj client.Object,
			opts ...client.SubResourceCreateOption) error {
			l.t.Errorf("a write of %s of %T", sub, obj)
			return c.SubResource(sub).Create(ctx, obj, subObj, opts...)
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object,
			opts ...client.SubResourceUpdateOption) error {
			l.t.Errorf("a write of %s of %T", sub, obj)
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch,
			opts ...client.SubResourcePatchOption) error {
			l.t.Errorf("a write of %s of %T", sub, obj)
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
	}
}

func (l *writeLog) check(verb string, obj client.Object, owner string) {
	if _, ok := obj.(*nodeslov1alpha1.NodeSLORollout); !ok {
		l.t.Errorf("a %s of %T", verb, obj)
	}
	if owner != pluginFieldManager {
		l.t.Errorf("a %s under field manager %q", verb, owner)
	}
	l.writes = append(l.writes, fmt.Sprintf("%s %s/%s", verb, obj.GetNamespace(), obj.GetName()))
}

func createOwner(opts []client.CreateOption) string {
	o := &client.CreateOptions{}
	o.ApplyOptions(opts)
	return o.FieldManager
}

func patchOwner(opts []client.PatchOption) string {
	o := &client.PatchOptions{}
	o.ApplyOptions(opts)
	return o.FieldManager
}

// pause, resume (of a halt) and retry write the NodeSLORollout's spec and
// nothing else: no field of the ConfigMap, none of the status.
func TestRolloutCommandsWriteOnlyTheNodeSLORolloutsSpec(t *testing.T) {
	data := map[string]string{threshold: validThreshold}
	rec := rollout.Record{Target: sloconfig.Load(data, nil).Fingerprint(),
		Health: &rollout.HealthRecord{Unhealthy: twoUnhealthy, HaltedAt: haltedAt}}
	fixture, ref := pauseFixture(data, rolloutObject(pauseRef, strategySpec(t, retryKey), recordStatus(rec)))
	cmBefore, objBefore := readConfigMap(t, fixture, ref), readRollout(t, fixture, ref)
	log := &writeLog{t: t}
	c := interceptor.NewClient(fixture.(client.WithWatch), log.funcs())
	ctx := context.Background()
	if err := SetPaused(ctx, c, ref, true, &bytes.Buffer{}); err != nil {
		t.Fatalf("pause: %v", err)
	}
	if err := SetPaused(ctx, c, ref, false, &bytes.Buffer{}); err != nil {
		t.Fatalf("resume: %v", err)
	}
	if err := RetryHalted(ctx, c, ref, &bytes.Buffer{}); err != nil {
		t.Fatalf("retry: %v", err)
	}
	if len(log.writes) != 3 {
		t.Errorf("writes %q, want one patch each", log.writes)
	}
	cmAfter, objAfter := readConfigMap(t, fixture, ref), readRollout(t, fixture, ref)
	if cmAfter.ResourceVersion != cmBefore.ResourceVersion || !reflect.DeepEqual(cmAfter, cmBefore) {
		t.Errorf("the ConfigMap changed:\n%+v\n%+v", cmBefore, cmAfter)
	}
	if !reflect.DeepEqual(objAfter.Status, objBefore.Status) {
		t.Errorf("the status changed:\n%+v\n%+v", objBefore.Status, objAfter.Status)
	}
	if s := objAfter.Spec; s.Paused || !sameSecond(s.Resume, haltedAt) || s.Retry == nil ||
		!reflect.DeepEqual(s.Strategy, objBefore.Spec.Strategy) {
		t.Errorf("spec %+v", s)
	}

	// Without a NodeSLORollout there is no spec.strategy: pause writes
	// nothing, and creates no NodeSLORollout.
	fixture, ref = pauseFixture(data)
	log = &writeLog{t: t}
	c = interceptor.NewClient(fixture.(client.WithWatch), log.funcs())
	if err := SetPaused(ctx, c, ref, true, &bytes.Buffer{}); err == nil || err.Error() != noStrategy {
		t.Errorf("pause without a NodeSLORollout: %v", err)
	}
	if len(log.writes) != 0 {
		t.Errorf("writes %q", log.writes)
	}
	if obj := readRollout(t, fixture, ref); obj != nil {
		t.Errorf("created %+v", obj)
	}
}
