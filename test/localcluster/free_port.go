package localcluster

import (
	"fmt"
	"net"
)

// FreeLocalAddress returns a 127.0.0.1:PORT nobody listens on right now, for
// the manager's metrics and probe servers: fixed ports would collide with
// whatever else runs on a shared development or CI machine.
func FreeLocalAddress() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("finding a free port: %w", err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String(), nil
}
