package manager

import (
	"fmt"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// newTimedClient is controller-runtime's client, its requests bounded by
// timeout (Options.RequestTimeout; 0: unbounded). The client's writes and
// reads past the cache get an HTTP client of their own with that timeout;
// the cache keeps the manager's, whose watches are meant to last.
func newTimedClient(timeout time.Duration) client.NewClientFunc {
	return func(cfg *rest.Config, options client.Options) (client.Client, error) {
		if timeout <= 0 {
			return client.New(cfg, options)
		}
		timed := rest.CopyConfig(cfg)
		timed.Timeout = timeout
		httpClient, err := rest.HTTPClientFor(timed)
		if err != nil {
			return nil, fmt.Errorf("the manager's client: %w", err)
		}
		options.HTTPClient = httpClient
		return client.New(timed, options)
	}
}
