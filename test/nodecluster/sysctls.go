package nodecluster

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// The host sysctls a run changes: the kubelet sets the first six to what it
// expects of a node (its "kernel tunables"), the CNI bridge plugin turns
// on IPv4 forwarding for the pods' gateway, kube-proxy turns on
// route_localnet (NodePorts on 127.0.0.1), the cluster sends bridged
// traffic through iptables (bridgeThroughIptables), and koordlet writes the
// NodeSLO's systemStrategy into the two vm settings (StartKoordlet).
var changedSysctls = []string{
	"vm.overcommit_memory",
	"vm.panic_on_oom",
	"kernel.panic",
	"kernel.panic_on_oops",
	"kernel.keys.root_maxkeys",
	"kernel.keys.root_maxbytes",
	"net.ipv4.ip_forward",
	"net.ipv4.conf.all.route_localnet",
	bridgeNFCallIptables,
	"vm.min_free_kbytes",
	"vm.watermark_scale_factor",
}

// bridgeNFCallIptables exists only while the br_netfilter module is loaded.
const bridgeNFCallIptables = "net.bridge.bridge-nf-call-iptables"

// optionalSysctl reports whether a sysctl may be missing on a host.
func optionalSysctl(name string) bool { return name == bridgeNFCallIptables }

// ReadSysctls returns the current values of the sysctls a run changes
// (an optional one the host lacks is left out).
func ReadSysctls() (map[string]string, error) {
	values := map[string]string{}
	for _, name := range changedSysctls {
		data, err := os.ReadFile(sysctlPath(name))
		if errors.Is(err, os.ErrNotExist) && optionalSysctl(name) {
			continue
		}
		if err != nil {
			return nil, err
		}
		values[name] = strings.TrimSpace(string(data))
	}
	return values, nil
}

// bridgeThroughIptables makes bridged IPv4 traffic go through iptables,
// as kubeadm requires of a node: a pod's connection to a Service whose
// endpoint is a pod on the same bridge is DNATed on the way there, and the
// endpoint's answer (bridged, from pod to pod) must meet conntrack to be
// translated back. Without br_netfilter (the sysctl absent) it does nothing:
// Services backed by the host, such as the kubernetes Service, work anyway.
func bridgeThroughIptables() error {
	err := os.WriteFile(sysctlPath(bridgeNFCallIptables), []byte("1\n"), 0o644)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// saveSysctls records the sysctls as they are now, unless a crashed run
// already recorded them: then those, the host's values before that run, are
// put back first.
func saveSysctls(l Layout) error {
	if err := restoreSysctls(l); err != nil {
		return err
	}
	values, err := ReadSysctls()
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, name := range changedSysctls {
		if value, ok := values[name]; ok {
			fmt.Fprintf(&b, "%s %s\n", name, value)
		}
	}
	return os.WriteFile(l.SavedSysctls(), []byte(b.String()), 0o644)
}

// restoreSysctls writes back the values saveSysctls recorded and forgets
// them.
func restoreSysctls(l Layout) error {
	data, err := os.ReadFile(l.SavedSysctls())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var errs []error
	for line := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
		name, value, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		current, err := os.ReadFile(sysctlPath(name))
		if err == nil && strings.TrimSpace(string(current)) == value {
			continue
		}
		if err := os.WriteFile(sysctlPath(name), []byte(value+"\n"), 0o644); err != nil {
			errs = append(errs, fmt.Errorf("restoring %s=%s: %w", name, value, err))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return os.Remove(l.SavedSysctls())
}

func sysctlPath(name string) string {
	return "/proc/sys/" + strings.ReplaceAll(name, ".", "/")
}
