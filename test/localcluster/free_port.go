package localcluster

import (
	"errors"
	"fmt"
	"net"
)

// FreeLocalAddress returns a 127.0.0.1:PORT nobody listens on right now, for
// the manager's metrics and probe servers: fixed ports would collide with
// whatever else runs on a shared development or CI machine.
func FreeLocalAddress() (string, error) {
	addrs, err := FreeLocalAddresses(1)
	if err != nil {
		return "", err
	}
	return addrs[0], nil
}

// FreeLocalAddresses returns n distinct free addresses. Each port is held
// until all are chosen: picking them one at a time can hand out the same
// port twice, and the second server of a process then fails to bind.
func FreeLocalAddresses(n int) ([]string, error) {
	addrs := make([]string, 0, n)
	var errs []error
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			errs = append(errs, fmt.Errorf("finding a free port: %w", err))
			break
		}
		defer func() { _ = l.Close() }()
		addrs = append(addrs, l.Addr().String())
	}
	return addrs, errors.Join(errs...)
}
