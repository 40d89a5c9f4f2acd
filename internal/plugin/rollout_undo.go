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

// UndoOptions are `rollout undo`'s flags: the revision to go back to (0:
// the one before the configuration in force), --dry-run, and --force, which
// writes a ConfigMap a GitOps tool syncs all the same.
type UndoOptions struct {
	ToRevision int64
	DryRun     DryRun
	Force      bool
}

// Undo is RunUndo without --force.
func Undo(ctx context.Context, c client.Client, ref ConfigMapRef, toRevision int64, dryRun DryRun,
	out, errOut io.Writer) error {
	return RunUndo(ctx, c, ref, UndoOptions{ToRevision: toRevision, DryRun: dryRun}, out, errOut)
}

// RunUndo writes revision opts.ToRevision's data back into the ConfigMap,
// or with a dry run prints the nodes and fields that would change and
// stores nothing (a server dry run sends the write, which admission
// judges). The write is an update at the resourceVersion read, so a
// concurrent edit is never overwritten; a deleted ConfigMap is created
// again. It sets the ConfigMap's change-cause annotation, which the new
// revision keeps. A ConfigMap a GitOps tool syncs (gitOpsOwner) is not
// written without opts.Force: the tool would put Git's data back, so the
// revision's data is printed as the ConfigMap to commit to Git instead,
// and that is an error.
func RunUndo(ctx context.Context, c client.Client, ref ConfigMapRef, opts UndoOptions, out, errOut io.Writer) error {
	dryRun := opts.DryRun
	h, err := FetchHistory(ctx, c, ref)
	if err != nil {
		return err
	}
	var to rollout.Revision
	if opts.ToRevision > 0 {
		to, err = h.Find(opts.ToRevision)
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
	if owner := gitOpsOwner(cm); owner != "" {
		switch {
		case dryRun == DryRunNone && !opts.Force:
			if err := writeManifest(out, ref, data, fmt.Sprintf("ConfigMap %s with the data of revision %d: "+
				"commit it to Git", ref, to.Number)); err != nil {
				return err
			}
			return fmt.Errorf("ConfigMap %s is synced from Git by %s, which would put Git's data back: "+
				"the undo belongs in Git; commit the data of revision %d (the ConfigMap printed above), "+
				"or write it into the ConfigMap anyway with --force; nothing written", ref, owner, to.Number)
		case dryRun == DryRunNone:
			printLine(errOut, fmt.Sprintf("warning: ConfigMap %s is synced from Git by %s: the undo is written "+
				"(--force), and lasts until it puts Git's data back; change Git too", ref, owner))
		default:
			printLine(errOut, fmt.Sprintf("warning: ConfigMap %s is synced from Git by %s: the undo belongs in Git; "+
				"without --force, undo writes nothing and prints the ConfigMap to commit", ref, owner))
		}
	}
	cm.Data = data
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[rollout.ChangeCauseAnnotation] = fmt.Sprintf("kubectl nodeslo rollout undo --to-revision=%d", to.Number)
	writeOpts := []client.UpdateOption{client.FieldOwner(pluginFieldManager)}
	if dryRun == DryRunServer {
		writeOpts = append(writeOpts, client.DryRunAll)
	}
	if dryRun != DryRunClient {
		if exists {
			err = c.Update(ctx, cm, writeOpts...)
		} else {
			err = c.Create(ctx, cm, createOptions(writeOpts)...)
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
