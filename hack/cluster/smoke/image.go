package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeslo/nodeslo-controller/test/nodecluster"
)

// checkImage runs the image from the local container tool on the node: it
// is loaded into containerd and a Pod runs its /manager --version under the
// restricted level, with imagePullPolicy IfNotPresent (the chart's; nothing
// can be pulled here, so it must be found on the node).
func checkImage(ctx context.Context, cluster *nodecluster.Cluster, tool, ref string) error {
	start := time.Now()
	name, err := cluster.LoadImage(ctx, tool, ref)
	if err != nil {
		return err
	}
	logf("%s save %s | ctr images import: %s", tool, ref, time.Since(start).Round(time.Millisecond))
	printCommand("ctr", "--address", cluster.ContainerdSocket(), "--namespace", "k8s.io", "images", "ls", "-q")
	log, err := runToCompletion(ctx, cluster, "manager-version", ref, []string{"--version"},
		func(c *corev1.Container) {
			c.Command = []string{"/manager"}
			c.ImagePullPolicy = corev1.PullIfNotPresent
		})
	if err != nil {
		return fmt.Errorf("the image %s on the node: %w", ref, err)
	}
	if !strings.HasPrefix(log, "nodeslo-controller ") {
		return fmt.Errorf("the image %s on the node: /manager --version printed %q", ref, log)
	}
	logf("the image %s (containerd: %s) ran on the node: %s", ref, name, strings.TrimSpace(log))
	return nil
}
