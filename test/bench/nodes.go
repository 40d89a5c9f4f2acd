package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Labels the bench ConfigMaps select on (see configs.go).
const (
	poolLabel  = "bench.nodeslo.dev/pool"
	sizeLabel  = "bench.nodeslo.dev/size"
	batchPool  = "batch" // every 10th node: the node strategy change-10pct edits
	bigSize    = "big"   // every 4th node
	bandwidthN = 5       // every 5th node carries the bandwidth annotation
	imagesN    = 30      // images on each node, as kubelet reports them
	labelsN    = 20      // labels on each node
	nodePrefix = "bench-node-"
	arch       = "amd64"
	osName     = "linux"
)

// nodeName is the name of the i-th bench node.
func nodeName(i int) string { return fmt.Sprintf("%s%05d", nodePrefix, i) }

// realisticNode is a Node as a kubelet on a cloud VM registers it: 20 labels,
// 4 annotations, capacity, 6 conditions and 30 images, about 9 KB of JSON.
// Only the labels and the bandwidth annotation matter to the controller; the
// rest is what its Node cache would hold without transforms.
func realisticNode(i int) *corev1.Node {
	name := nodeName(i)
	zone := "zone-" + strconv.Itoa(i%3)
	pool := "general"
	if i%10 == 0 {
		pool = batchPool
	}
	size := nodeSize(i)
	labels := map[string]string{
		"kubernetes.io/hostname":                   name,
		"kubernetes.io/arch":                       arch,
		"kubernetes.io/os":                         osName,
		"beta.kubernetes.io/arch":                  arch,
		"beta.kubernetes.io/os":                    osName,
		"beta.kubernetes.io/instance-type":         "m6i.4xlarge",
		"node.kubernetes.io/instance-type":         "m6i.4xlarge",
		"topology.kubernetes.io/region":            "region-1",
		"topology.kubernetes.io/zone":              zone,
		"failure-domain.beta.kubernetes.io/region": "region-1",
		"failure-domain.beta.kubernetes.io/zone":   zone,
		"node.kubernetes.io/lifecycle":             "on-demand",
		"node-role.kubernetes.io/worker":           "",
		"topology.ebs.csi.aws.com/zone":            zone,
		"k8s.io/cloud-provider-aws":                "a1b2c3d4e5f60718293a4b5c6d7e8f90",
		"eks.amazonaws.com/nodegroup":              "ng-" + pool,
		"eks.amazonaws.com/capacityType":           "ON_DEMAND",
		"kernel":                                   "anolis",
		poolLabel:                                  pool,
		sizeLabel:                                  size,
	}
	annotations := map[string]string{
		"node.alpha.kubernetes.io/ttl":                           "0",
		"volumes.kubernetes.io/controller-managed-attach-detach": "true",
		"csi.volume.kubernetes.io/nodeid":                        `{"ebs.csi.aws.com":"i-0` + fmt.Sprintf("%016x", i) + `"}`,
	}
	if i%bandwidthN == 0 {
		annotations[sloconfig.NetworkBandwidthAnnotation] = "25G"
	} else {
		annotations["alpha.kubernetes.io/provided-node-ip"] = nodeIP(i)
	}
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:              resource.MustParse("16"),
		corev1.ResourceMemory:           resource.MustParse("65021924Ki"),
		corev1.ResourcePods:             resource.MustParse("110"),
		corev1.ResourceEphemeralStorage: resource.MustParse("209702892Ki"),
		"hugepages-1Gi":                 resource.MustParse("0"),
		"hugepages-2Mi":                 resource.MustParse("0"),
		"attachable-volumes-aws-ebs":    resource.MustParse("25"),
	}
	allocatable := capacity.DeepCopy()
	allocatable[corev1.ResourceCPU] = resource.MustParse("15890m")
	allocatable[corev1.ResourceMemory] = resource.MustParse("64004068Ki")
	allocatable[corev1.ResourceEphemeralStorage] = resource.MustParse("192188443124")
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, Annotations: annotations},
		Spec: corev1.NodeSpec{
			ProviderID: fmt.Sprintf("aws:///region-1%s/i-0%016x", zone[len(zone)-1:], i),
		},
		Status: corev1.NodeStatus{
			Capacity:    capacity,
			Allocatable: allocatable,
			Conditions:  nodeConditions(metav1.Now()),
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: nodeIP(i)},
				{Type: corev1.NodeHostName, Address: name + ".region-1.compute.internal"},
				{Type: corev1.NodeInternalDNS, Address: name + ".region-1.compute.internal"},
			},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
			NodeInfo: corev1.NodeSystemInfo{
				MachineID:               fmt.Sprintf("ec2%029x", i),
				SystemUUID:              fmt.Sprintf("ec2%05x-1f2e-3d4c-5b6a-79880a1b2c3d", i),
				BootID:                  fmt.Sprintf("%08x-0a1b-2c3d-4e5f-60718293a4b5", i),
				KernelVersion:           "5.10.134-16.al8.x86_64",
				OSImage:                 "Anolis OS 8.8",
				ContainerRuntimeVersion: "containerd://1.7.22",
				KubeletVersion:          "v1.37.2",
				OperatingSystem:         osName,
				Architecture:            arch,
			},
			Images: nodeImages(),
		},
	}
}

// nodeSize is the size label node i is created with: every 4th is big.
func nodeSize(i int) string {
	if i%4 == 0 {
		return bigSize
	}
	return "standard"
}

func nodeIP(i int) string { return fmt.Sprintf("10.%d.%d.%d", 1+i/65536, (i/256)%256, i%256) }

// nodeConditions are the kubelet's five conditions and one of node-problem-detector's.
func nodeConditions(heartbeat metav1.Time) []corev1.NodeCondition {
	since := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	cond := func(t corev1.NodeConditionType, s corev1.ConditionStatus, reason, msg string) corev1.NodeCondition {
		return corev1.NodeCondition{Type: t, Status: s, LastHeartbeatTime: heartbeat, LastTransitionTime: since,
			Reason: reason, Message: msg}
	}
	return []corev1.NodeCondition{
		cond(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory",
			"kubelet has sufficient memory available"),
		cond(corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
		cond(corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID",
			"kubelet has sufficient PID available"),
		cond(corev1.NodeNetworkUnavailable, corev1.ConditionFalse, "RouteCreated", "RouteController created a route"),
		cond("KernelDeadlock", corev1.ConditionFalse, "KernelHasNoDeadlock", "kernel has no deadlock"),
		cond(corev1.NodeReady, corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status"),
	}
}

// nodeImages are 30 images of the sizes and name shapes a busy node reports.
func nodeImages() []corev1.ContainerImage {
	images := make([]corev1.ContainerImage, imagesN)
	for i := range images {
		repo := fmt.Sprintf("registry.example.com/team-%02d/service-%02d", i%7, i)
		images[i] = corev1.ContainerImage{
			Names: []string{
				fmt.Sprintf("%s@sha256:%064x", repo, i*7919+1),
				fmt.Sprintf("%s:v1.%d.%d", repo, i%5, i),
			},
			SizeBytes: int64(50_000_000 + i*3_000_000),
		}
	}
	return images
}

// createNodes creates nodes 0..n-1 with `parallel` goroutines.
func createNodes(ctx context.Context, c client.Client, n, parallel int) error {
	return forEach(ctx, n, parallel, func(ctx context.Context, i int) error {
		if err := c.Create(ctx, realisticNode(i)); err != nil {
			return fmt.Errorf("creating node %s: %w", nodeName(i), err)
		}
		return nil
	})
}

// touchNodeStatuses sends count status-only updates, as kubelets' heartbeats
// do, spread over the nodes: only the conditions' heartbeat times change.
func touchNodeStatuses(ctx context.Context, c client.Client, n, count, parallel int) error {
	now := metav1.Now()
	return forEach(ctx, count, parallel, func(ctx context.Context, k int) error {
		// With fewer nodes than updates, two goroutines may touch one node.
		return retry.RetryOnConflict(retry.DefaultRetry, func() error {
			node := &corev1.Node{}
			if err := c.Get(ctx, client.ObjectKey{Name: nodeName(k % n)}, node); err != nil {
				return fmt.Errorf("reading node: %w", err)
			}
			node.Status.Conditions = nodeConditions(now)
			return c.Status().Update(ctx, node, client.FieldOwner("kubelet"))
		})
	})
}

// resolverNode is what sloconfig needs of a bench node.
func resolverNode(i int) sloconfig.Node {
	n := realisticNode(i)
	return sloconfig.Node{Name: n.Name, Labels: n.Labels, Annotations: n.Annotations}
}
