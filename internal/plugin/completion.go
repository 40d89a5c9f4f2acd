package plugin

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Completion (docs/kubectl-nodeslo.md#completion): kubectl completes a
// plugin's arguments by running kubectl_complete-nodeslo, which runs this
// plugin's hidden __complete command, cobra's: it completes subcommands and
// flags by itself, node names and revisions with the functions below, which
// ask the cluster of the flags given so far (--kubeconfig, --context, -n).

// completionTimeout bounds a completion's requests: a shell waits on it.
const completionTimeout = 5 * time.Second

// completeNodeNames completes node names from the cluster, leaving out the
// ones already given.
func completeNodeNames(kube *kubeFlags) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		c, err := kube.client()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ctx, cancel := context.WithTimeout(context.Background(), completionTimeout)
		defer cancel()
		list := sloconfig.NodeMetadataList()
		if err := c.List(ctx, list); err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		given := map[string]bool{}
		for _, a := range args {
			given[a] = true
		}
		var names []cobra.Completion
		for _, n := range list.Items {
			if strings.HasPrefix(n.Name, toComplete) && !given[n.Name] {
				names = append(names, n.Name)
			}
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeRevisions completes the revision numbers kept of the ConfigMap
// (-n and --slo-config-name as given so far), newest first, each described
// by its outcome and change cause.
func completeRevisions(kube *kubeFlags, ref *ConfigMapRef) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if resolveNamespace(cmd.Flags()) != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		c, err := kube.client()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ctx, cancel := context.WithTimeout(context.Background(), completionTimeout)
		defer cancel()
		h, err := FetchHistory(ctx, client.Reader(c), *ref)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for i, r := range slices.Backward(h.Revisions) {
			n := strconv.FormatInt(r.Number, 10)
			if !strings.HasPrefix(n, toComplete) {
				continue
			}
			desc := string(r.Outcome)
			if i == len(h.Revisions)-1 {
				desc += ", in force"
			}
			if r.ChangeCause != "" {
				desc += ": " + r.ChangeCause
			}
			out = append(out, cobra.CompletionWithDesc(n, desc))
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
	}
}
