package plugin

import (
	"bytes"
	"context"
	"errors"
	"io"
	"time"
)

// `kubectl nodeslo rollout status` waits as `kubectl rollout status` does
// (docs/rollout.md#what-the-operator-sees): until the rollout completed,
// by default, following a watch of the ConfigMap and of its
// NodeSLORollout (rollout_status_watch.go); once with --watch=false; at
// most --timeout. It ends with exit status 0 when the rollout completed, 1
// (ExitError, as every error of the plugin but a verdict command's) when
// the health gate halted it, the wait timed out, or on any error.

// errTimedOut is kubectl's wording when --timeout passes.
var errTimedOut = errors.New("timed out waiting for the condition")

// statusFollow is how `rollout status` waits: watch until complete (or
// print once), at most timeout (0: forever); with output other than the
// text the end prints that instead of the block, and progress, when set,
// takes the progress lines instead of the output.
type statusFollow struct {
	watch    bool
	timeout  time.Duration
	output   outputFormat
	progress io.Writer
}

// followRollout prints the status src gives, and with opts.watch waits
// for its changes until the rollout completed, printing one progress line
// per change, as kubectl rollout status does; whenever the wait ends it
// prints the whole status once. A halt by the health gate ends it with an
// error, as a Deployment past its progress deadline ends kubectl's.
func followRollout(ctx context.Context, src statusSource, out io.Writer, opts statusFollow) error {
	if opts.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, opts.timeout, errTimedOut)
		defer cancel()
	}
	progress := opts.progress
	if progress == nil {
		progress = out
	}
	var last *RolloutStatus
	lastLine := ""
	for {
		status, err := src.Next(ctx)
		if err != nil {
			return endWait(out, opts.output, last, waitEnded(ctx, err))
		}
		last = &status
		switch {
		case status.HaltedByTheGate():
			return endWait(out, opts.output, last, status.haltError())
		case status.Done() || !opts.watch:
			return endWait(out, opts.output, last, nil)
		}
		if line := status.ProgressLine(); line != lastLine {
			printLine(progress, line)
			lastLine = line
		}
	}
}

// endWait prints the last status read (none: nothing) whole, or as the
// structure of output, and returns err, the wait's outcome.
func endWait(out io.Writer, output outputFormat, last *RolloutStatus, err error) error {
	if last == nil {
		return err
	}
	if !output.text() {
		if werr := output.print(out, last.printable()); werr != nil {
			return werr
		}
		return err
	}
	var b bytes.Buffer
	last.Write(&b)
	if _, werr := out.Write(b.Bytes()); werr != nil {
		return werr
	}
	return err
}

// waitEnded is the error that ends a wait: kubectl's wording when the
// timeout passed, err otherwise.
func waitEnded(ctx context.Context, err error) error {
	if errors.Is(context.Cause(ctx), errTimedOut) {
		return errTimedOut
	}
	return err
}
