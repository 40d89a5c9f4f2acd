package plugin

import (
	"bytes"
	"context"
	"errors"
	"io"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// `kubectl nodeslo rollout status` waits as `kubectl rollout status` does
// (docs/rollout.md#what-the-operator-sees): until the rollout completed,
// by default; once with --watch=false; at most --timeout. It ends with
// exit status 0 when the rollout completed, 1 (ExitError, as every error
// of the plugin but a verdict command's) when the health gate halted it,
// the wait timed out, or on any error.

// defaultStatusInterval is how often the wait reads the status. It polls,
// one GET of the ConfigMap and one LIST of its revisions (by label, at most
// 100) a second, rather than watching: the status changes only when the
// controller decides, at most about once a second, so a watch would see
// nothing sooner; a poll needs only the get and list the command already
// needs, and no resumption of a watch that expired or was cut.
const defaultStatusInterval = time.Second

// errTimedOut is kubectl's wording when --timeout passes.
var errTimedOut = errors.New("timed out waiting for the condition")

// statusFollow is how `rollout status` waits: watch until complete (or
// print once), at most timeout (0: forever), reading every interval.
type statusFollow struct {
	watch             bool
	timeout, interval time.Duration
}

// followRollout prints the status, and with opts.watch prints it again
// every time it changes until the rollout completed. A halt by the health
// gate ends it with an error, as a Deployment past its progress deadline
// ends kubectl's.
func followRollout(ctx context.Context, c client.Reader, key client.ObjectKey, out io.Writer, opts statusFollow) error {
	if opts.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, opts.timeout, errTimedOut)
		defer cancel()
	}
	interval := opts.interval
	if interval <= 0 {
		interval = defaultStatusInterval
	}
	last := ""
	for {
		status, err := FetchRolloutStatus(ctx, c, key)
		if err != nil {
			return waitEnded(ctx, err)
		}
		var b bytes.Buffer
		status.Write(&b)
		if b.String() != last {
			if last != "" {
				printLine(out, "---")
			}
			_, _ = out.Write(b.Bytes())
			last = b.String()
		}
		switch {
		case status.HaltedByTheGate():
			return status.haltError()
		case status.Done() || !opts.watch:
			return nil
		}
		select {
		case <-ctx.Done():
			return waitEnded(ctx, ctx.Err())
		case <-time.After(interval):
		}
	}
}

// waitEnded is the error that ends a wait: kubectl's wording when the
// timeout passed, err otherwise.
func waitEnded(ctx context.Context, err error) error {
	if errors.Is(context.Cause(ctx), errTimedOut) {
		return errTimedOut
	}
	return err
}
