package faultproxy

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
)

// connectionKey is the request context's key for the client connection it
// came on (http.Server.ConnContext puts it there).
type connectionKey struct{}

// resetFault forwards the request, lets the apiserver answer it, throws
// the answer away and resets the client's TCP connection.
type resetFault struct{}

// ResetAfterForwarding forwards the request and, once the apiserver has
// answered, resets the client's connection (a TCP RST) instead of passing
// the answer on: the write took effect, but the client sees a connection
// error and cannot tell. client-go does not resend a write after such an
// error (it does resend a get). The reset takes the connection's other
// requests with it, its watches too, as a reset of a real connection
// would; client-go shares one HTTP/2 connection among the configs of the
// same TLS settings, so a client meant to be spared needs a config of its
// own proxy, or one that does not share (a custom Dial, say).
func ResetAfterForwarding() Fault { return resetFault{} }

func (resetFault) String() string { return "reset after forwarding" }

func (resetFault) inject(p *Proxy, _ http.ResponseWriter, r *http.Request, _ Request) {
	p.forwarder.ServeHTTP(&discardingWriter{header: http.Header{}}, r)
	if conn, ok := r.Context().Value(connectionKey{}).(net.Conn); ok {
		resetConnection(conn)
	}
	// Nothing more is to be written on the connection.
	panic(http.ErrAbortHandler)
}

// resetConnection closes c's TCP connection with SO_LINGER 0, which sends
// RST rather than FIN: the peer reads "connection reset by peer", or, when
// its TLS layer was reading a record, an unexpected EOF.
func resetConnection(c net.Conn) {
	if tlsConn, ok := c.(*tls.Conn); ok {
		c = tlsConn.NetConn()
	}
	if tcp, ok := c.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = c.Close()
}

// withConnection is http.Server's ConnContext: it keeps each request's
// connection within reach of resetFault.
func withConnection(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connectionKey{}, c)
}

// discardingWriter takes the apiserver's answer and keeps none of it.
type discardingWriter struct {
	header http.Header
}

func (d *discardingWriter) Header() http.Header         { return d.header }
func (d *discardingWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardingWriter) WriteHeader(int)             {}
func (d *discardingWriter) Flush()                      {}
