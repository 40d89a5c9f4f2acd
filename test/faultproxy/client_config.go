package faultproxy

import (
	"errors"

	"k8s.io/client-go/rest"
)

// Config is a client config that reaches the apiserver through the proxy
// as the holder of token.
func (p *Proxy) Config(token string) *rest.Config {
	return &rest.Config{
		Host:            p.URL,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAData: p.CAData},
	}
}

// Through is a copy of cfg (its rate limits, user agent, impersonation)
// that goes through the proxy. cfg must authenticate with a bearer token:
// the proxy cannot pass a client certificate on (it ends TLS), and a
// request without credentials would reach the apiserver as
// system:anonymous.
func (p *Proxy) Through(cfg *rest.Config) (*rest.Config, error) {
	if cfg.BearerToken == "" && cfg.BearerTokenFile == "" {
		return nil, errors.New("faultproxy: the config has no bearer token, and a client certificate " +
			"cannot pass through the proxy: use a ServiceAccount token (ServiceAccountToken)")
	}
	out := rest.CopyConfig(cfg)
	out.Host = p.URL
	out.TLSClientConfig = rest.TLSClientConfig{CAData: p.CAData}
	return out, nil
}
