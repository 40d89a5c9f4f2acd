package plugin

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// Exit codes of the plugin.
const (
	ExitOK      = 0
	ExitInvalid = 1 // the configuration has invalid keys
	ExitChanges = 1 // diff: some NodeSLO would change
	ExitUsage   = 2 // bad flags, unreadable input; diff: any error
)

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

// NewRootCommand builds "kubectl nodeslo" with its subcommands.
func NewRootCommand(streams IOStreams) *cobra.Command {
	root := &cobra.Command{
		Use:   "kubectl-nodeslo",
		Short: "Validate, render and explain the NodeSLO configuration (slo-controller-config)",
		Long: "kubectl nodeslo checks the slo-controller-config ConfigMap and shows the NodeSLO " +
			"every node would get, offline, from files (validate, render); explain tells, live " +
			"against a cluster, where a node's NodeSLO comes from, diff, which NodeSLOs a ConfigMap would change, " +
			"and rollout status, how far a staged rollout of a change has reached the nodes.",
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
	root.AddCommand(newValidateCommand(streams), newRenderCommand(streams), newExplainCommand(streams),
		newDiffCommand(streams), newRolloutCommand(streams))
	addVersion(root, streams)
	return root
}

// Execute runs the plugin on args and returns the process exit code.
func Execute(args []string, streams IOStreams) int {
	root := NewRootCommand(streams)
	root.SetArgs(args)
	return exitCode(root.Execute(), streams.ErrOut)
}

// exitCode is the exit status err ends the plugin with, after saying on
// errOut what the command has not said.
func exitCode(err error, errOut io.Writer) int {
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
		return ExitUsage
	}
}
