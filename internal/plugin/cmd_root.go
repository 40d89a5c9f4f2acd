package plugin

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// Exit codes of the plugin (docs/kubectl-nodeslo.md#exit-status): an error
// exits 1, as in kubectl, but for the commands whose result is a verdict
// (validate, render --strict, diff), where 1 is the verdict and an error
// exits 2, as in kubectl diff.
const (
	ExitOK           = 0
	ExitError        = 1 // any error of a command that gives no verdict
	ExitInvalid      = 1 // validate, render --strict: the configuration has invalid keys
	ExitChanges      = 1 // diff: some NodeSLO would change
	ExitVerdictError = 2 // validate, render, diff: bad flags, unreadable input, the cluster not asked
)

// verdictAnnotation marks a command whose exit status 1 is a verdict, so
// that its errors exit with ExitVerdictError.
const verdictAnnotation = "nodeslo.koordinator.sh/exit-status-1-is-a-verdict"

// markVerdict makes cmd's errors exit with ExitVerdictError.
func markVerdict(cmd *cobra.Command) *cobra.Command {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[verdictAnnotation] = "true"
	return cmd
}

// IOStreams are the plugin's standard streams.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// exitError ends the plugin with code, after the command has said why, or
// saying err on stderr.
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string {
	if e.err != nil {
		return e.err.Error()
	}
	return fmt.Sprintf("exit status %d", e.code)
}

func (e exitError) Unwrap() error { return e.err }

// rootIntroduction opens the root's help, before the index of every command
// (commandIndex).
const rootIntroduction = "kubectl nodeslo checks the slo-controller-config ConfigMap and shows the NodeSLO " +
	"every node would get, offline, from files (validate, render). Live against a cluster, explain tells where " +
	"a node's NodeSLO comes from, diff which NodeSLOs a ConfigMap would change, and summary shows the fleet at " +
	"a glance; the rollout commands follow a staged rollout of a change (rollout status), list and restore the " +
	"configurations put in force (rollout history, rollout undo), and hold, resume or retry it (rollout pause, " +
	"rollout resume, rollout retry).\n" +
	"kubectl's connection flags (--kubeconfig, --context, -n, ...) and -v are global: they may stand before " +
	"or after the command."

// NewRootCommand builds "kubectl nodeslo" with its subcommands.
func NewRootCommand(streams IOStreams) *cobra.Command {
	root := &cobra.Command{
		Use:           "kubectl-nodeslo",
		Short:         "Validate, render and explain the NodeSLO configuration (slo-controller-config)",
		Annotations:   map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl nodeslo"},
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// kubectl completes plugins through the hidden __complete command, which
	// stays; a script-generating "completion" subcommand would only confuse.
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	kube := newKubeFlags()
	kube.addFlags(root.PersistentFlags())
	addVerbosityFlags(root.PersistentFlags())
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error { return resolveNamespace(cmd.Flags()) }
	root.AddCommand(markVerdict(newValidateCommand(streams, kube)), markVerdict(newRenderCommand(streams)),
		newExplainCommand(streams, kube), markVerdict(newDiffCommand(streams, kube)), newRolloutCommand(streams, kube),
		newSummaryCommand(streams, kube))
	addVersion(root, streams)
	root.Long = rootIntroduction + "\n\nCommands:\n" + commandIndex(root)
	return root
}

// Execute runs the plugin on args and returns the process exit code.
func Execute(args []string, streams IOStreams) int {
	root := NewRootCommand(streams)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	onError := ExitError
	if cmd != nil && cmd.Annotations[verdictAnnotation] != "" {
		onError = ExitVerdictError
	}
	return exitCode(err, onError, streams.ErrOut)
}

// exitCode is the exit status err ends the plugin with (onError for an
// error that carries none), after saying on errOut what the command has
// not said.
func exitCode(err error, onError int, errOut io.Writer) int {
	var exit exitError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &exit):
		if exit.err != nil {
			printLine(errOut, "error: "+exit.err.Error())
		}
		return exit.code
	default:
		printLine(errOut, "error: "+err.Error())
		return onError
	}
}
