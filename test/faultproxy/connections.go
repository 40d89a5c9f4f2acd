package faultproxy

import (
	"net"
	"net/http"
	"sync"
)

// connections are the client connections the proxy holds open, so that
// DropConnections can end the watches already open when a rule is added:
// a rule faults the requests that arrive after it, and a client's watches
// were opened long before.
type connections struct {
	mu   sync.Mutex
	open map[net.Conn]struct{}
}

// track is http.Server's ConnState: it keeps every connection from its
// first state until it is closed or hijacked.
func (c *connections) track(conn net.Conn, state http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch state {
	case http.StateNew:
		if c.open == nil {
			c.open = map[net.Conn]struct{}{}
		}
		c.open[conn] = struct{}{}
	case http.StateClosed, http.StateHijacked:
		delete(c.open, conn)
	default:
	}
}

// DropConnections resets every client connection open now (a TCP RST, as
// a network blip or a restarted load balancer would), and returns how many
// it reset. Each client's watches and requests in flight on them fail,
// and the client connects and watches again: through the rules in force
// by then, so a StallWatch rule added before reaches the watches that were
// already open. A request in flight may or may not have been carried out.
func (p *Proxy) DropConnections() int {
	p.conns.mu.Lock()
	open := make([]net.Conn, 0, len(p.conns.open))
	for conn := range p.conns.open {
		open = append(open, conn)
	}
	p.conns.mu.Unlock()
	for _, conn := range open {
		resetConnection(conn)
	}
	return len(open)
}
