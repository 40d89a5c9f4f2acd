package plugin

import (
	"context"
	"time"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// newRolloutCommand is `kubectl nodeslo rollout`, home of `status`,
// `history`, `undo`, `pause`, `resume` and `retry`.
func newRolloutCommand(streams IOStreams, kube *kubeFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rollout",
		Short: "Follow, pause, resume or retry the staged rollout of a configuration change; list its revisions, undo one",
	}
	cmd.AddCommand(newRolloutStatusCommand(streams, kube), newRolloutHistoryCommand(streams, kube),
		newRolloutUndoCommand(streams, kube), newRolloutPauseCommand(streams, kube, true),
		newRolloutPauseCommand(streams, kube, false), newRolloutRetryCommand(streams, kube),
		newRolloutConvertCommand(streams))
	return cmd
}

// newRolloutConvertCommand is `kubectl nodeslo rollout convert`.
func newRolloutConvertCommand(streams IOStreams) *cobra.Command {
	var file configMapFlags
	cmd := &cobra.Command{
		Use:   "convert -f FILE",
		Short: "Print the NodeSLORollout that holds the policy of a ConfigMap's retired nodeslo-rollout-config key",
		Long: `The staged rollout's policy is the NodeSLORollout's spec.strategy; the
ConfigMap's nodeslo-rollout-config key is refused. convert reads the
ConfigMap of the file and prints the NodeSLORollout of the same namespace
and name whose spec.strategy holds the key's policy, and spec.paused its
"paused". A field the strategy does not have is an error that names it.
Nothing is written: apply what is printed, then remove the key.`,
		Example: `  kubectl nodeslo rollout convert -f slo-controller-config.yaml > nodeslorollout.yaml`,
		Args:    cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			cm, err := file.read(streams.In, streams.ErrOut)
			if err != nil {
				return err
			}
			return ConvertRolloutKey(cm, file.ref, streams.Out)
		},
	}
	file.addFlags(cmd.Flags())
	_ = cmd.MarkFlagRequired("filename")
	return cmd
}

// newRolloutRetryCommand is `kubectl nodeslo rollout retry`.
func newRolloutRetryCommand(streams IOStreams, kube *kubeFlags) *cobra.Command {
	var ref ConfigMapRef
	cmd := &cobra.Command{
		Use:   "retry",
		Short: "Roll out again the ConfigMap's data that the health gate halted (sets spec.retry on its NodeSLORollout)",
		Long: `A configuration the health gate halted stays halted, even when its data is
applied again (by Argo CD's or Flux's self-heal, or kubectl apply): nothing is
written for it. retry asks the controller to roll it out again, as a new
rollout, canaries first, with no verdicts. It sets spec.retry on the
NodeSLORollout of the ConfigMap (same namespace and name) to name the halt:
the configuration of the data and the time of the halt, as the controller's
record (status.rolloutRecord) has them. The write is a merge patch of the spec
under the field manager kubectl-nodeslo, and nothing else is written: the
data stays as its owner wrote it, and a GitOps tool that syncs the
ConfigMap never sees the NodeSLORollout, so it never undoes the retry. A
retry names one halt: a later halt of the same data is not retried by it.
When the ConfigMap's data is not a halted configuration, that is an error.`,
		Example: `  kubectl nodeslo rollout retry`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := kube.client()
			if err != nil {
				return err
			}
			return RetryHalted(cmd.Context(), c, ref, streams.Out)
		},
	}
	addConfigMapRefFlags(cmd.Flags(), &ref)
	return cmd
}

// newRolloutPauseCommand is `kubectl nodeslo rollout pause` (paused) or
// `rollout resume`.
func newRolloutPauseCommand(streams IOStreams, kube *kubeFlags, paused bool) *cobra.Command {
	var ref ConfigMapRef
	use, short := "resume",
		"Resume the rollout where it stopped: spec.paused false (after a halt, spec.resume) on its NodeSLORollout"
	if paused {
		use, short = "pause", "Pause the rollout, no further node is reached: spec.paused true on its NodeSLORollout"
	}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Long: short + `.
pause and resume write spec.paused of the NodeSLORollout of the ConfigMap
(same namespace and name), a merge patch under the field manager
kubectl-nodeslo, and nothing else: the ConfigMap is only read, so a GitOps
tool (Argo CD, Flux) that syncs it, or that owns the NodeSLORollout's
spec.strategy through server-side apply, never undoes them. Without
spec.strategy every change reaches every node at once: there is no rollout
to pause, and that is an error.
After the health gate halted the rollout, resume also sets spec.resume to the
time of the halt (status.health.haltedAt): the controller resumes that
halt, never a later one, and tolerates the unhealthy nodes known from then
on. When the ConfigMap's data is a configuration the gate halted and keeps
out of force, resume refuses: rollout retry rolls it out again.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := kube.client()
			if err != nil {
				return err
			}
			return SetPaused(cmd.Context(), c, ref, paused, streams.Out)
		},
	}
	addConfigMapRefFlags(cmd.Flags(), &ref)
	return cmd
}

// newRolloutHistoryCommand is `kubectl nodeslo rollout history [--revision N] [-o FORMAT]`.
func newRolloutHistoryCommand(streams IOStreams, kube *kubeFlags) *cobra.Command {
	var ref ConfigMapRef
	var revision int64
	var output string
	cmd := &cobra.Command{
		Use:   "history [--revision N] [-o FORMAT]",
		Short: "List the configurations put in force (the revision history), or show one",
		Long: `Lists the revisions the controller keeps of the ConfigMap (ControllerRevisions
in its namespace, at most revisionHistoryLimit of them): number, age, who
last changed the ConfigMap's data, the keys changed from the revision
before, the nodes the rollout reached and its outcome (InProgress,
Completed, Superseded, AllAtOnce, Halted). The newest is the configuration in force.
With --revision N, prints that revision's data and what putting it back
would change, field by field, from the configuration in force.
-o json|yaml prints either as a structure, which every other -o of
kubectl reads: -o name names the ControllerRevisions, -o custom-columns has
a row per revision; -o wide adds each revision's configuration and
ControllerRevision to the list (docs/kubectl-nodeslo.md#machine-readable-output).`,
		Example: `  kubectl nodeslo rollout history
  kubectl nodeslo rollout history --revision 2 -o yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			format, err := parseOutput(output, objectForms)
			if err != nil {
				return err
			}
			c, err := kube.client()
			if err != nil {
				return err
			}
			h, err := FetchHistory(cmd.Context(), c, ref)
			if err != nil {
				return err
			}
			if revision == 0 {
				switch {
				case format.wide():
					return h.WriteWide(streams.Out, time.Now())
				case format.text():
					return h.Write(streams.Out, time.Now())
				}
				return format.print(streams.Out, h.printable())
			}
			r, err := h.Find(revision)
			if err != nil {
				return err
			}
			if format.text() {
				return h.WriteRevision(streams.Out, r)
			}
			return format.print(streams.Out, h.revisionPrintable(r))
		},
	}
	addConfigMapRefFlags(cmd.Flags(), &ref)
	cmd.Flags().Int64Var(&revision, "revision", 0,
		"show this revision's data and its diff against the configuration in force")
	addOutputFlag(cmd, &output, objectForms)
	_ = cmd.RegisterFlagCompletionFunc("revision", completeRevisions(kube, &ref))
	return cmd
}

// newRolloutUndoCommand is `kubectl nodeslo rollout undo [--to-revision N]
// [--dry-run=none|client|server] [--force]`.
func newRolloutUndoCommand(streams IOStreams, kube *kubeFlags) *cobra.Command {
	var ref ConfigMapRef
	var opts UndoOptions
	var dryRun string
	cmd := &cobra.Command{
		Use:   "undo",
		Short: "Write an earlier revision's data back into the ConfigMap",
		Long: `Writes the data of an earlier revision (by default the one before the
configuration in force) back into the ConfigMap: each key the controller
reads gets that revision's value, or is removed when the revision had its
defaults; every other key, nodeslo-rollout-config included, is left as it
is. The write is an ordinary update of the ConfigMap: it passes the
admission webhook, and the controller rolls it out under the rollout
settings in force, like any change, as a new revision. A ConfigMap changed
since it was read is not overwritten (run the undo again); a deleted one is
created. With --dry-run=client (or --dry-run alone), prints which nodes'
NodeSLOs would change, and which fields, and writes nothing; with
--dry-run=server, the write is first sent to the apiserver as a dry run
(admission, the project's webhook included, judges it; nothing is stored).
A ConfigMap that Argo CD or Flux syncs from Git (a field manager of theirs
in its managedFields, Argo CD's tracking annotation, or Flux's
kustomize.toolkit.fluxcd.io/name or helm.toolkit.fluxcd.io/name label) gets
Git's data back at the tool's next sync: undo then writes nothing, prints
the revision's data as the ConfigMap to commit to Git instead, and exits 1;
--force writes it all the same.`,
		Example: `  kubectl nodeslo rollout undo --dry-run=server
  kubectl nodeslo rollout undo
  kubectl nodeslo rollout undo --to-revision 1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			mode, err := ParseDryRun(dryRun)
			if err != nil {
				return err
			}
			opts.DryRun = mode
			c, err := kube.client()
			if err != nil {
				return err
			}
			return RunUndo(cmd.Context(), c, ref, opts, streams.Out, streams.ErrOut)
		},
	}
	addConfigMapRefFlags(cmd.Flags(), &ref)
	cmd.Flags().Int64Var(&opts.ToRevision, "to-revision", 0,
		"the revision to go back to (default: the one before the configuration in force)")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "write the ConfigMap even when Argo CD or Flux syncs it "+
		"from Git (which puts Git's data back at its next sync); without it, such a ConfigMap is not written "+
		"and the revision's data is printed as the ConfigMap to commit to Git")
	cmd.Flags().StringVar(&dryRun, "dry-run", string(DryRunNone), `"none", "client" or "server", as kubectl's: `+
		`with client, print the nodes and fields the undo would change and write nothing; with server, also `+
		`send the write as a server-side dry run. --dry-run alone is client.`)
	cmd.Flags().Lookup("dry-run").NoOptDefVal = string(DryRunClient)
	_ = cmd.RegisterFlagCompletionFunc("to-revision", completeRevisions(kube, &ref))
	dryRuns := []cobra.Completion{string(DryRunNone), string(DryRunClient), string(DryRunServer)}
	_ = cmd.RegisterFlagCompletionFunc("dry-run", cobra.FixedCompletions(dryRuns, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// intervalFlag is rollout status's former poll interval, now ignored.
const intervalFlag = "interval"

// newRolloutStatusCommand is `kubectl nodeslo rollout status`.
func newRolloutStatusCommand(streams IOStreams, kube *kubeFlags) *cobra.Command {
	var ref ConfigMapRef
	opts := statusFollow{}
	var output string
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show how far the configuration in force has reached the nodes; wait until it has reached them all",
		Long: `Prints the status the controller publishes on the NodeSLORollout of the
ConfigMap (nodeslo.koordinator.sh/v1alpha1, same namespace and name), as it
is: the step, the nodes the rollout reached, the nodes pending and the
canaries among them, whether it is paused (by spec.paused, by an invalid
spec.strategy, or while a metric check is inconclusive) and the time of the
next step. With a health gate in spec.strategy: its settings, the nodes it judged unhealthy with the signal
for each, the nodes unhealthy before their write, and a halt, why, and how
to resume or undo it. When the status was not decided on the ConfigMap as
it stands (its resourceVersion is not the status's observedConfigMapVersion)
or on the NodeSLORollout's spec as it stands (its generation is not the
status's observedGeneration: a pause or resume a moment ago), it says the
controller has not taken it up yet, and what is in force. Reads the
ConfigMap and the NodeSLORollout; no Node, NodeSLO or revision.
Like kubectl rollout status, it watches by default (a watch of each, by
name, resumed when the apiserver ends it): it prints one progress
line whenever the status changes ("Waiting for rollout of configuration
5089928f322f: 13 of 40 nodes reached, step 2 of 5..."), until the rollout
of the ConfigMap's configuration completed, then the whole status once;
--watch=false prints the whole status at once. --timeout ends the wait (0:
wait forever), printing the whole status as it stood. -o json|yaml prints,
at the end, the status as a structure instead, and the progress lines on
stderr; every other -o of kubectl reads that structure, -o name names the
NodeSLORollout (docs/kubectl-nodeslo.md#machine-readable-output).
Exit status, as kubectl rollout status: 0 when the rollout completed (or
there is no spec.strategy), or with --watch=false when it is not halted; 1
when the health gate halted it, the wait timed out ("timed out waiting for
the condition"), or on any error.`,
		Example: `  kubectl nodeslo rollout status
  kubectl nodeslo rollout status --watch=false -o json
  kubectl nodeslo rollout status --timeout 10m`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			format, err := parseOutput(output, objectForms)
			if err != nil {
				return err
			}
			opts.output = format
			if !format.text() {
				opts.progress = streams.ErrOut
			}
			if cmd.Flags().Changed(intervalFlag) {
				printLine(streams.ErrOut, "warning: --interval is ignored: rollout status follows a watch, "+
					"and sees a change as soon as the apiserver sends it")
			}
			c, err := kube.watchClient()
			if err != nil {
				return err
			}
			key := client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}
			if !opts.watch {
				return followRollout(cmd.Context(), readOnce{c: c, key: key}, streams.Out, opts)
			}
			ctx, stop := context.WithCancel(cmd.Context())
			defer stop()
			return followRollout(ctx, watchRollout(ctx, c, key), streams.Out, opts)
		},
	}
	addConfigMapRefFlags(cmd.Flags(), &ref)
	cmd.Flags().BoolVarP(&opts.watch, "watch", "w", true,
		"print the status again as it changes, until the rollout completed; false: print it once")
	cmd.Flags().DurationVar(&opts.timeout, "timeout", 0,
		"how long to wait for the rollout to complete before giving up (0: wait forever)")
	// --interval set the pace of a poll, before the watch: still taken, so
	// that a script giving it goes on working, and hidden.
	cmd.Flags().Duration(intervalFlag, time.Second, "ignored: rollout status follows a watch")
	_ = cmd.Flags().MarkHidden(intervalFlag)
	addOutputFlag(cmd, &output, objectForms)
	return cmd
}
