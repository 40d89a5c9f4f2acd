package nodecluster

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
)

// The tables kube-proxy and the kubelet write their KUBE-* chains to, in
// iptables and ip6tables: kube-proxy's Service rules (KUBE-SERVICES,
// KUBE-SVC-*, KUBE-SEP-*, KUBE-POSTROUTING, ...), the kubelet's
// KUBE-FIREWALL and both one's canaries (KUBE-KUBELET-CANARY,
// KUBE-PROXY-CANARY, KUBE-IPTABLES-HINT).
var (
	kubeTables       = []string{"nat", "filter", "mangle"}
	iptablesCommands = []string{"iptables", "ip6tables"}
)

const kubeChainPrefix = "KUBE-"

// kubeChains lists the KUBE-* chains of one table, and the rules of other
// chains that jump to them as (chain, 1-based rule number), highest number
// first within a chain so that deleting them in order keeps the numbers
// right.
func kubeChains(binary, table string) (chains []string, jumps []kubeJump, err error) {
	out, err := exec.Command(binary, "-w", "-t", table, "-S").CombinedOutput()
	if err != nil {
		return nil, nil, fmt.Errorf("%s -t %s -S: %w: %s", binary, table, err, out)
	}
	numbers := map[string]int{} // rules seen so far per chain
	scanner := bufio.NewScanner(bytes.NewReader(out))
	for scanner.Scan() {
		fields := strings.Fields(scanner.Text())
		if len(fields) < 2 {
			continue
		}
		switch fields[0] {
		case "-N":
			if strings.HasPrefix(fields[1], kubeChainPrefix) {
				chains = append(chains, fields[1])
			}
		case "-A":
			chain := fields[1]
			numbers[chain]++
			if strings.HasPrefix(chain, kubeChainPrefix) {
				continue // goes with its chain
			}
			if i := slices.Index(fields, "-j"); i >= 0 && i+1 < len(fields) && strings.HasPrefix(fields[i+1], kubeChainPrefix) {
				jumps = append(jumps, kubeJump{chain: chain, number: numbers[chain]})
			}
		}
	}
	slices.Reverse(jumps)
	return chains, jumps, scanner.Err()
}

type kubeJump struct {
	chain  string
	number int
}

// removeKubeChains removes every KUBE-* chain kube-proxy and the kubelet
// made, in iptables and ip6tables, and the rules of the built-in chains
// that jump to them (the kubelet's KUBE-FIREWALL drops packets to
// 127.0.0.0/8 from elsewhere: it must not outlive the node). Only one node
// cluster runs on a machine, and no other kubelet or kube-proxy.
func removeKubeChains() error {
	var errs []error
	for _, binary := range iptablesCommands {
		if _, err := exec.LookPath(binary); err != nil {
			continue
		}
		for _, table := range kubeTables {
			chains, jumps, err := kubeChains(binary, table)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			run := func(args ...string) {
				args = append([]string{"-w", "-t", table}, args...)
				if out, err := exec.Command(binary, args...).CombinedOutput(); err != nil {
					errs = append(errs, fmt.Errorf("%s %s: %w: %s", binary, strings.Join(args, " "), err, out))
				}
			}
			for _, jump := range jumps {
				run("-D", jump.chain, strconv.Itoa(jump.number))
			}
			for _, chain := range chains {
				run("-F", chain)
			}
			for _, chain := range chains {
				run("-X", chain)
			}
		}
	}
	return errors.Join(errs...)
}

// kubeChainsLeft lists the KUBE-* chains still in iptables or ip6tables.
func kubeChainsLeft() []string {
	var left []string
	for _, binary := range iptablesCommands {
		if _, err := exec.LookPath(binary); err != nil {
			continue
		}
		for _, table := range kubeTables {
			chains, jumps, err := kubeChains(binary, table)
			if err != nil {
				left = append(left, err.Error())
				continue
			}
			if len(chains) > 0 || len(jumps) > 0 {
				left = append(left, fmt.Sprintf("%s %s table: chains %v, %d jumps to them", binary, table, chains, len(jumps)))
			}
		}
	}
	return left
}
