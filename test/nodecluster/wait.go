package nodecluster

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// waitFor polls ready every interval until it reports true, the timeout
// passes, or the process it waits on (if any) exits: a component that
// failed to start is reported with its exit, not as a timeout.
func waitFor(ctx context.Context, what string, p *process, timeout time.Duration,
	ready func(context.Context) error,
) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		if last = ready(ctx); last == nil {
			return nil
		}
		var exited <-chan struct{}
		if p != nil {
			exited = p.exited
		}
		select {
		case <-exited:
			return fmt.Errorf("waiting for %s: %w (see %s.log)", what, p.exitError(), p.name)
		case <-ctx.Done():
			return fmt.Errorf("%s not ready within %s: %w", what, timeout, last)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// httpOK checks that url answers 200. Its certificate is not verified: the
// components' own serving certificates are self-signed (a probe, as the
// kubelet's HTTPS probes do not verify either).
func httpOK(url string) func(context.Context) error {
	client := &http.Client{
		Timeout: 5 * time.Second,
		// A liveness probe of a local process.
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec
	}
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer func() { _ = resp.Body.Close() }()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: %s: %s", url, resp.Status, body)
		}
		return nil
	}
}

// socketAccepts checks that a unix socket accepts connections.
func socketAccepts(path string) func(context.Context) error {
	return func(ctx context.Context) error {
		var d net.Dialer
		conn, err := d.DialContext(ctx, "unix", path)
		if err != nil {
			return err
		}
		return conn.Close()
	}
}
