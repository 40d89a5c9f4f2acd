package nodecluster

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"slices"
	"strings"
)

// cniRules returns the iptables rules of the nat table's POSTROUTING chain
// that the bridge plugin added for the cluster's pods (its comments name
// the network), as rule numbers (highest first) and the per-pod chains they
// jump to.
func cniRules() (numbers []string, chains []string, err error) {
	if _, err := exec.LookPath("iptables"); err != nil {
		return nil, nil, nil
	}
	out, err := exec.Command("iptables", "-w", "-t", "nat", "-L", "POSTROUTING", "-n", "--line-numbers").CombinedOutput()
	if err != nil {
		return nil, nil, fmt.Errorf("iptables -t nat -L POSTROUTING: %w: %s", err, out)
	}
	scanner := bufio.NewScanner(bytes.NewReader(out))
	for scanner.Scan() {
		line := scanner.Text()
		if !strings.Contains(line, fmt.Sprintf("name: %q", cniNetwork)) {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) >= 2 {
			numbers = append(numbers, fields[0])
			chains = append(chains, fields[1])
		}
	}
	slices.Reverse(numbers)
	return numbers, chains, scanner.Err()
}

// removeCNIRules removes what the bridge plugin left in iptables when a pod
// was not torn down through CNI DEL (a crash): the POSTROUTING jumps and the
// per-pod chains.
func removeCNIRules() error {
	numbers, chains, err := cniRules()
	if err != nil {
		return err
	}
	var errs []error
	for _, n := range numbers {
		if out, err := exec.Command("iptables", "-w", "-t", "nat", "-D", "POSTROUTING", n).CombinedOutput(); err != nil {
			errs = append(errs, fmt.Errorf("iptables -t nat -D POSTROUTING %s: %w: %s", n, err, out))
		}
	}
	for _, chain := range chains {
		for _, op := range []string{"-F", "-X"} {
			if out, err := exec.Command("iptables", "-w", "-t", "nat", op, chain).CombinedOutput(); err != nil {
				errs = append(errs, fmt.Errorf("iptables -t nat %s %s: %w: %s", op, chain, err, out))
			}
		}
	}
	return errors.Join(errs...)
}

// removeBridge deletes the pods' bridge (the pods' veths went with their
// network namespaces).
func removeBridge() error {
	if _, err := net.InterfaceByName(cniBridge); err != nil {
		return nil
	}
	if out, err := exec.Command("ip", "link", "delete", cniBridge).CombinedOutput(); err != nil {
		return fmt.Errorf("ip link delete %s: %w: %s", cniBridge, err, out)
	}
	return nil
}

// defaultRouteIP is the host's address on its default route: the node's IP.
func defaultRouteIP() (string, error) {
	// A UDP "connection" sends nothing: it only picks the route's source.
	conn, err := net.Dial("udp4", "1.1.1.1:9")
	if err != nil {
		return "", fmt.Errorf("finding the node's IP (set NodeIP): %w", err)
	}
	defer func() { _ = conn.Close() }()
	return conn.LocalAddr().(*net.UDPAddr).IP.String(), nil
}
