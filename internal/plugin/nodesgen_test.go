package plugin

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"testing"
)

// koordletDigest is the image digest of the koordlet in the Nodes' status.
const koordletDigest = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// writeNodeList writes n realistic Nodes as one v1 List, the way
// `kubectl get nodes -o yaml` prints them: about twenty labels, four
// annotations, and, with status, the status a kubelet reports (addresses,
// capacity, conditions, node info and a few images), which makes up most of
// a real node's bytes.
func writeNodeList(w io.Writer, n int, status bool) error {
	b := bufio.NewWriter(w)
	printf := func(format string, a ...any) { _, _ = fmt.Fprintf(b, format, a...) }
	printf("apiVersion: v1\nitems:\n")
	for i := range n {
		zone := []string{"a", "b", "c"}[i%3]
		pool := []string{"general", "colo", "online", "bulk"}[i%4]
		printf(`- apiVersion: v1
  kind: Node
  metadata:
    annotations:
      node.alpha.kubernetes.io/ttl: "0"
      node.koordinator.sh/network-bandwidth: %dG
      volumes.kubernetes.io/controller-managed-attach-detach: "true"
      csi.volume.kubernetes.io/nodeid: '{"ebs.csi.aws.com":"i-0%015x"}'
    creationTimestamp: "2026-01-02T03:04:05Z"
    labels:
      beta.kubernetes.io/arch: amd64
      beta.kubernetes.io/instance-type: m6i.4xlarge
      beta.kubernetes.io/os: linux
      failure-domain.beta.kubernetes.io/region: eu-west-1
      failure-domain.beta.kubernetes.io/zone: eu-west-1%s
      kubernetes.io/arch: amd64
      kubernetes.io/hostname: ip-10-%d-%d-%d.eu-west-1.compute.internal
      kubernetes.io/os: linux
      node.kubernetes.io/instance-type: m6i.4xlarge
      topology.kubernetes.io/region: eu-west-1
      topology.kubernetes.io/zone: eu-west-1%s
      topology.ebs.csi.aws.com/zone: eu-west-1%s
      node-pool: %s
      node-role.kubernetes.io/worker: ""
      eks.amazonaws.com/capacityType: ON_DEMAND
      eks.amazonaws.com/nodegroup: %s-%d
      eks.amazonaws.com/nodegroup-image: ami-0123456789abcdef0
      k8s.io/cloud-provider-aws: 0123456789abcdef0123456789abcdef
      rack: rack-%d
      koordinator.sh/enable-colocation: "%t"
    name: ip-10-%d-%d-%d.eu-west-1.compute.internal
    resourceVersion: "%d"
    uid: 00000000-0000-4000-8000-%012x
  spec:
    providerID: aws:///eu-west-1%s/i-0%015x
`, 10+i%3*15, i, zone, i/65536%256, i/256%256, i%256, zone, zone, pool, pool, i%40, i%500, pool == "colo",
			i/65536%256, i/256%256, i%256, 1000+i, i, zone, i)
		if status {
			printf(`  status:
    addresses:
    - address: 10.%d.%d.%d
      type: InternalIP
    - address: ip-10-%d-%d-%d.eu-west-1.compute.internal
      type: Hostname
    allocatable:
      cpu: 15890m
      ephemeral-storage: "95491281146"
      memory: 62190236Ki
      pods: "234"
    capacity:
      cpu: "16"
      ephemeral-storage: 104845292Ki
      memory: 64387228Ki
      pods: "234"
    conditions:
    - lastHeartbeatTime: "2026-11-30T15:00:00Z"
      lastTransitionTime: "2026-01-02T03:04:05Z"
      message: kubelet has sufficient memory available
      reason: KubeletHasSufficientMemory
      status: "False"
      type: MemoryPressure
    - lastHeartbeatTime: "2026-11-30T15:00:00Z"
      lastTransitionTime: "2026-01-02T03:04:05Z"
      message: kubelet has no disk pressure
      reason: KubeletHasNoDiskPressure
      status: "False"
      type: DiskPressure
    - lastHeartbeatTime: "2026-11-30T15:00:00Z"
      lastTransitionTime: "2026-01-02T03:04:05Z"
      message: kubelet is posting ready status
      reason: KubeletReady
      status: "True"
      type: Ready
    daemonEndpoints:
      kubeletEndpoint:
        Port: 10250
    images:
    - names:
      - registry.example.com/koordinator-sh/koordlet@sha256:`+koordletDigest+`
      - registry.example.com/koordinator-sh/koordlet:v1.6.0
      sizeBytes: 123456789
    - names:
      - registry.k8s.io/pause@sha256:fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210
      - registry.k8s.io/pause:3.10
      sizeBytes: 320368
    nodeInfo:
      architecture: amd64
      bootID: 00000000-0000-4000-9000-%012x
      containerRuntimeVersion: containerd://2.1.0
      kernelVersion: 6.12.0-1.amzn2023.x86_64
      kubeProxyVersion: v1.37.2
      kubeletVersion: v1.37.2
      machineID: ec2%029x
      operatingSystem: linux
      osImage: Amazon Linux 2023
      systemUUID: ec2%029x
`, i/65536%256, i/256%256, i%256, i/65536%256, i/256%256, i%256, i, i, i)
		}
	}
	printf("kind: List\nmetadata:\n  resourceVersion: \"\"\n")
	return b.Flush()
}

var scaleOut = flag.String("write-scale-nodes", "",
	"write a List of -scale-nodes realistic Nodes to this file and stop (for measuring the plugin by hand)")
var scaleNodes = flag.Int("scale-nodes", 100000, "the number of Nodes -write-scale-nodes writes")
var scaleStatus = flag.Bool("scale-status", false, "give the Nodes of -write-scale-nodes a kubelet status")

// TestWriteScaleNodes writes the measuring fixture when asked:
//
//	go test ./internal/plugin/ -run TestWriteScaleNodes -write-scale-nodes /tmp/nodes.yaml
func TestWriteScaleNodes(t *testing.T) {
	if *scaleOut == "" {
		t.Skip("no -write-scale-nodes")
	}
	f, err := os.Create(*scaleOut)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	if err := writeNodeList(f, *scaleNodes, *scaleStatus); err != nil {
		t.Fatal(err)
	}
}
