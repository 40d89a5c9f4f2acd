package faultproxy

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Proxy is a running fault-injecting HTTPS proxy in front of one
// kube-apiserver.
type Proxy struct {
	// URL is where clients reach the proxy (https://127.0.0.1:port).
	URL string
	// CAData is the PEM of the CA that signed the proxy's serving
	// certificate: the only CA its clients need to trust.
	CAData []byte

	server    *http.Server
	closed    chan struct{}
	closeOnce sync.Once
	forwarder *httputil.ReverseProxy
	rules     ruleSet
	ids       *identities
	conns     connections
	log       *log.Logger
}

// Option changes how Start sets the proxy up.
type Option func(*Proxy)

// WithLog sends the proxy's own messages (an apiserver that did not answer,
// a cut watch) to w; they are dropped otherwise.
func WithLog(w io.Writer) Option {
	return func(p *Proxy) { p.log = log.New(w, "", log.LstdFlags|log.Lmicroseconds) }
}

// readHeaderTimeout bounds only the reading of a request's headers: the
// proxy sets no timeout on a request's life, so that watches and held
// answers last as long as the client and the apiserver want.
const readHeaderTimeout = 30 * time.Second

// Start listens on a free port of 127.0.0.1 and forwards every request to
// upstream's apiserver until ctx ends or Close is called. It trusts the
// apiserver as upstream does (its CA) but sends none of upstream's
// credentials on a forwarded request: each client's own bearer token goes
// through untouched (see the package's doc). upstream's credentials serve
// only the TokenReviews that name a rule's User.
func Start(ctx context.Context, upstream *rest.Config, opts ...Option) (*Proxy, error) {
	target, _, err := rest.DefaultServerUrlFor(upstream)
	if err != nil {
		return nil, fmt.Errorf("faultproxy: the upstream's address: %w", err)
	}
	transport, err := rest.TransportFor(rest.AnonymousClientConfig(upstream))
	if err != nil {
		return nil, fmt.Errorf("faultproxy: a transport to the upstream: %w", err)
	}
	reviews, err := kubernetes.NewForConfig(upstream)
	if err != nil {
		return nil, fmt.Errorf("faultproxy: a client for TokenReviews: %w", err)
	}
	cert, trusted, err := newServingCert()
	if err != nil {
		return nil, err
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("faultproxy: listening: %w", err)
	}
	p := &Proxy{
		URL:    "https://" + listener.Addr().String(),
		CAData: trusted,
		ids:    newIdentities(reviews),
		closed: make(chan struct{}),
		log:    log.New(io.Discard, "", 0),
	}
	for _, opt := range opts {
		opt(p)
	}
	p.forwarder = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
		},
		Transport: transport,
		// Every chunk goes out as it comes: a watch event must not wait
		// in a buffer.
		FlushInterval: -1,
		ErrorLog:      p.log,
	}
	p.server = &http.Server{
		Handler:           p,
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: readHeaderTimeout,
		ConnContext:       withConnection,
		ConnState:         p.conns.track,
		ErrorLog:          p.log,
	}
	go func() {
		if err := p.server.ServeTLS(listener, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
			p.log.Printf("faultproxy: serving: %v", err)
		}
	}()
	go func() {
		select {
		case <-ctx.Done():
			_ = p.Close()
		case <-p.closed:
		}
	}()
	return p, nil
}

// Close stops the proxy and drops every connection, watches included.
func (p *Proxy) Close() error {
	p.closeOnce.Do(func() { close(p.closed) })
	return p.server.Close()
}

// Add puts a rule in force, after those already added (the first that
// fires for a request faults it).
func (p *Proxy) Add(rule Rule) (*ActiveRule, error) {
	if err := rule.validate(); err != nil {
		return nil, err
	}
	active := &ActiveRule{rule: rule, removal: p.rules.remove}
	p.rules.add(active)
	return active, nil
}

// ServeHTTP faults the request when a rule fires for it and forwards it
// untouched otherwise.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if req, ok := describeRequest(r); ok {
		if rule := p.rules.pick(r.Context(), req, p.ids.userOf); rule != nil {
			rule.rule.Fault.inject(p, w, r, req)
			return
		}
	}
	p.forwarder.ServeHTTP(w, r)
}
