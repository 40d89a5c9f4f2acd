package nodecluster

import (
	"context"
	"fmt"
	"path/filepath"
	"time"
)

// startEtcd starts a one-member etcd on loopback ports, without fsync (the
// cluster is thrown away; fsync on a shared disk only makes it slow).
func (c *Cluster) startEtcd(ctx context.Context) error {
	client, peer := c.ports.etcdClient, c.ports.etcdPeer
	p, err := startProcess(c.layout, "etcd", filepath.Join(c.opts.Assets, "etcd"),
		"--name=default",
		"--data-dir="+c.layout.EtcdDir(),
		"--listen-client-urls="+client,
		"--advertise-client-urls="+client,
		"--listen-peer-urls="+peer,
		"--initial-advertise-peer-urls="+peer,
		"--initial-cluster=default="+peer,
		"--unsafe-no-fsync=true",
		"--log-level=warn",
	)
	if err != nil {
		return err
	}
	c.processes = append(c.processes, p)
	return waitFor(ctx, "etcd", p, 2*time.Minute, httpOK(fmt.Sprintf("%s/health", client)))
}
