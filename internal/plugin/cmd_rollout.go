package plugin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// ExitPending is the exit status of `rollout status` while nodes are pending.
const ExitPending = 1

// newRolloutCommand is `kubectl nodeslo rollout`, home of `status`.
func newRolloutCommand(streams IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rollout",
		Short: "Follow the staged rollout of a configuration change (docs/rollout.md)",
	}
	cmd.AddCommand(newRolloutStatusCommand(streams))
	return cmd
}

// newRolloutStatusCommand is `kubectl nodeslo rollout status [--watch]`.
func newRolloutStatusCommand(streams IOStreams) *cobra.Command {
	kube := newKubeFlags()
	var ref ConfigMapRef
	var watch bool
	var interval time.Duration
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show how far the configuration in force has reached the nodes",
		Long: `Reads the slo-controller-config ConfigMap (its data and the controller's rollout
record), the Nodes and the NodeSLOs, and prints how many nodes are still
pending (their NodeSLO differs from what the configuration resolves for
them), how many canaries among them, how many the rollout has reached, its
step, the time of the next step and whether it is paused.
Exit status, like kubectl rollout status: 0 when no node is pending, 1 while
some are (without --watch), 2 on an error. With --watch it prints the status
again whenever it changes and exits 0 once no node is pending.`,
		Example: `  kubectl nodeslo rollout status
  kubectl nodeslo rollout status --watch`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := kube.client()
			if err != nil {
				return err
			}
			key := client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}
			return followRollout(cmd.Context(), c, key, streams, watch, interval)
		},
	}
	kube.addFlags(cmd.Flags())
	addConfigMapRefFlags(cmd.Flags(), &ref)
	cmd.Flags().BoolVarP(&watch, "watch", "w", false, "print the status again as it changes, until no node is pending")
	cmd.Flags().DurationVar(&interval, "interval", 2*time.Second, "how often --watch reads the cluster")
	return cmd
}

// followRollout prints the status once, or with watch every time it
// changes until nothing is pending.
func followRollout(ctx context.Context, c client.Reader, key client.ObjectKey, streams IOStreams,
	watch bool, interval time.Duration) error {
	last := ""
	for {
		status, err := FetchRolloutStatus(ctx, c, key)
		if err != nil {
			return err
		}
		var b bytes.Buffer
		status.Write(&b)
		if b.String() != last {
			if last != "" {
				printLine(streams.Out, "---")
			}
			_, _ = streams.Out.Write(b.Bytes())
			last = b.String()
		}
		switch {
		case status.Done():
			return nil
		case !watch:
			return exitError{code: ExitPending}
		}
		select {
		case <-ctx.Done():
			return errors.New("interrupted while nodes are still pending")
		case <-time.After(interval):
		}
	}
}

// FetchRolloutStatus reads the ConfigMap (absent: defaults, no rollout), the
// Nodes and the NodeSLOs and computes the status.
func FetchRolloutStatus(ctx context.Context, c client.Reader, key client.ObjectKey) (RolloutStatus, error) {
	cm := &corev1.ConfigMap{}
	if err := c.Get(ctx, key, cm); err != nil && !apierrors.IsNotFound(err) {
		return RolloutStatus{}, fmt.Errorf("reading ConfigMap %s: %w", key, err)
	}
	in, err := FetchDiffInputs(ctx, c, cm.Data)
	if err != nil {
		return RolloutStatus{}, err
	}
	return ComputeRolloutStatus(RolloutStatusInputs{
		DiffInputs: in, RecordValue: cm.Annotations[rollout.RecordAnnotation],
	}), nil
}
