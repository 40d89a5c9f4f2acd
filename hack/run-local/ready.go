package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// waitForManager returns once the manager answers /readyz and has written a
// NodeSLO for every node, so that the ready line is true when printed.
func waitForManager(ctx context.Context, c client.Client, readyzURL string, nodes []string,
	timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if !answersOK(ctx, readyzURL) {
			return false, nil
		}
		for _, name := range nodes {
			if err := c.Get(ctx, client.ObjectKey{Name: name}, &slov1alpha1.NodeSLO{}); err != nil {
				return false, nil //nolint:nilerr // not there yet: keep polling
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("the manager was not ready with a NodeSLO for each of %v within %s", nodes, timeout)
	}
	return nil
}

func answersOK(ctx context.Context, url string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}
