package plugin

import (
	"context"
	"fmt"
	"io"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// undoFieldManager is the field manager of an undo's write, which the
// revision it makes names as who changed the ConfigMap.
const undoFieldManager = "kubectl-nodeslo"

// DryRun is kubectl's --dry-run: none writes, client prints what would be
// written, server also sends the write to the apiserver as a dry run, which
// admission (the project's webhook included) judges without storing it.
type DryRun string

// The values of --dry-run, as kubectl's.
const (
	DryRunNone   DryRun = "none"
	DryRunClient DryRun = "client"
	DryRunServer DryRun = "server"
)

// ParseDryRun reads --dry-run's value, refusing any but kubectl's three.
func ParseDryRun(s string) (DryRun, error) {
	switch d := DryRun(s); d {
	case DryRunNone, DryRunClient, DryRunServer:
		return d, nil
	}
	return "", fmt.Errorf("invalid --dry-run value %q: must be none, client or server", clip(s))
}

// Undo writes revision toRevision's data (0: the one before the
// configuration in force) back into the ConfigMap, or with a dry run prints
// the nodes and fields that would change and stores nothing (a server dry
// run sends the write, which admission judges). The write is
// an update at the resourceVersion read, so a concurrent edit is never
// overwritten; a deleted ConfigMap is created again. It sets the
// ConfigMap's change-cause annotation, which the new revision keeps.
func Undo(ctx context.Context, c client.Client, ref ConfigMapRef, toRevision int64, dryRun DryRun,
	out, errOut io.Writer) error {
	h, err := FetchHistory(ctx, c, ref)
	if err != nil {
		return err
	}
	var to rollout.Revision
	if toRevision > 0 {
		to, err = h.Find(toRevision)
	} else {
		to, err = h.Previous()
	}
	if err != nil {
		return err
	}
	cm := &corev1.ConfigMap{}
	exists := true
	if err := c.Get(ctx, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, cm); err != nil {
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("reading ConfigMap %s: %w", ref, err)
		}
		exists = false
		cm.Namespace, cm.Name = ref.Namespace, ref.Name
	}
	data := rollout.UndoData(cm.Data, to)
	keys := rollout.ChangedKeys(cm.Data, data)
	if exists && len(keys) == 0 {
		printLine(out, fmt.Sprintf("ConfigMap %s already holds the data of revision %d: nothing to undo", ref, to.Number))
		return nil
	}
	cm.Data = data
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[rollout.ChangeCauseAnnotation] = fmt.Sprintf("kubectl nodeslo rollout undo --to-revision=%d", to.Number)
	opts := []client.UpdateOption{client.FieldOwner(undoFieldManager)}
	if dryRun == DryRunServer {
		opts = append(opts, client.DryRunAll)
	}
	if dryRun != DryRunClient {
		if exists {
			err = c.Update(ctx, cm, opts...)
		} else {
			err = c.Create(ctx, cm, createOptions(opts)...)
		}
	}
	if dryRun == DryRunClient || dryRun == DryRunServer {
		if err != nil {
			return fmt.Errorf("server dry run of writing revision %d back into ConfigMap %s: %w", to.Number, ref, err)
		}
		judged := ""
		if dryRun == DryRunServer {
			judged = "; server dry run: the apiserver and its admission accepted the write"
		}
		printLine(out, fmt.Sprintf("Undo to revision %d would write keys %s of ConfigMap %s (dry run: nothing written%s):",
			to.Number, strings.Join(keys, ", "), ref, judged))
		in, err := FetchDiffInputs(ctx, c, data)
		if err != nil {
			return err
		}
		return Diff(in).Write(out, errOut)
	}
	switch {
	case apierrors.IsConflict(err):
		return fmt.Errorf("ConfigMap %s changed while undoing; nothing was written, run the undo again: %w", ref, err)
	case err != nil:
		return fmt.Errorf("writing revision %d back into ConfigMap %s: %w", to.Number, ref, err)
	}
	printLine(out, fmt.Sprintf("ConfigMap %s: the data of revision %d written back (keys %s). "+
		"The controller puts it in force as a new revision, under the rollout settings in force; "+
		"follow it with: kubectl nodeslo rollout status --watch", ref, to.Number, strings.Join(keys, ", ")))
	return nil
}

// createOptions are an update's options as a create's (both are a field
// owner and, for a server dry run, DryRunAll).
func createOptions(opts []client.UpdateOption) []client.CreateOption {
	out := make([]client.CreateOption, 0, len(opts))
	for _, o := range opts {
		if co, ok := o.(client.CreateOption); ok {
			out = append(out, co)
		}
	}
	return out
}
