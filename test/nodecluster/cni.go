package nodecluster

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// The CNI network's name and its bridge: the cleanup finds what the bridge
// plugin made (the link, the iptables rules it comments with this name) by
// them.
const (
	cniNetwork = "nodeslo-cluster"
	cniBridge  = "nodeslo0"
)

// writeCNIConfig writes the pod network containerd sets up for each pod: a
// bridge on the host with the pods' gateway address, host-local addresses
// from the pod subnet (its allocations kept under the cluster directory),
// and masquerading for traffic leaving the subnet. containerd adds the
// loopback interface itself.
func (c *Cluster) writeCNIConfig() error {
	config := map[string]any{
		"cniVersion": "1.0.0",
		"name":       cniNetwork,
		"plugins": []any{map[string]any{
			"type":        "bridge",
			"bridge":      cniBridge,
			"isGateway":   true,
			"ipMasq":      true,
			"hairpinMode": true,
			"ipam": map[string]any{
				"type":    "host-local",
				"ranges":  [][]map[string]string{{{"subnet": c.opts.PodSubnet}}},
				"routes":  []map[string]string{{"dst": "0.0.0.0/0"}},
				"dataDir": filepath.Join(c.layout.CNIDir(), "ipam"),
			},
		}},
	}
	data, err := json.MarshalIndent(config, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.layout.CNIConfDir(), 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(c.layout.CNIConfDir(), "10-"+cniNetwork+".conflist"), data, 0o644)
}
