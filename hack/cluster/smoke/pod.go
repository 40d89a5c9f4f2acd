package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"

	"github.com/nodeslo/nodeslo-controller/test/nodecluster"
)

const (
	namespace = "smoke"
	podName   = "probed"
	// The sandbox image, imported into containerd by the cluster: nothing
	// can be pulled here, so the pod never pulls.
	image = "localhost/nodeslo-cluster/pause:1"
)

// runPod runs the smoke Pod to Ready and checks what a real node does for
// it, then deletes it and waits for the kubelet to have torn it down.
func runPod(ctx context.Context, cluster *nodecluster.Cluster) error {
	client := cluster.Clientset()
	start := time.Now()
	_, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name:   namespace,
		Labels: map[string]string{"pod-security.kubernetes.io/enforce": "restricted"},
	}}, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	// The ServiceAccount admission plugin refuses pods until the
	// serviceaccount controller has made the namespace's default account.
	if err := poll(ctx, time.Minute, func() error {
		_, err := client.CoreV1().ServiceAccounts(namespace).Get(ctx, "default", metav1.GetOptions{})
		return err
	}); err != nil {
		return fmt.Errorf("the default ServiceAccount: %w", err)
	}
	if _, err := client.CoreV1().Pods(namespace).Create(ctx, smokePod(), metav1.CreateOptions{}); err != nil {
		return err
	}
	var pod *corev1.Pod
	if err := poll(ctx, 2*time.Minute, func() error {
		pod, err = client.CoreV1().Pods(namespace).Get(ctx, podName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		return podReady(pod)
	}); err != nil {
		kubectl(cluster, "describe", "pod", "-n", namespace, podName)
		return fmt.Errorf("the pod: %w", err)
	}
	logf("pod %s/%s Running and Ready on %s (IP %s) %s after its creation",
		namespace, podName, pod.Spec.NodeName, pod.Status.PodIP, time.Since(start).Round(time.Millisecond))
	kubectl(cluster, "get", "pod", "-n", namespace, "-o", "wide")
	kubectl(cluster, "logs", "-n", namespace, podName)
	kubectl(cluster, "get", "pod", "-n", namespace, podName, "-o", "jsonpath="+
		`{.status.containerStatuses[0].ready} {.status.containerStatuses[0].containerID} `+
		`{.status.conditions[?(@.type=="Ready")]}{"\n"}`)
	if sysctls, err := nodecluster.ReadSysctls(); err == nil {
		logf("sysctls while the node runs (the kubelet's and the bridge's): %v", sysctls)
	}
	printCommand("ip", "-br", "addr", "show", "nodeslo0")
	printCommand("iptables", "-w", "-t", "nat", "-S", "POSTROUTING")

	body, err := httpGet(ctx, fmt.Sprintf("http://%s:8080/", pod.Status.PodIP))
	if err != nil {
		return fmt.Errorf("the pod's port from the host: %w", err)
	}
	logf("GET http://%s:8080/ from the host: %q", pod.Status.PodIP, strings.TrimSpace(body))

	if pod.Spec.NodeName != cluster.NodeName() {
		return fmt.Errorf("the pod runs on %q, not on the node", pod.Spec.NodeName)
	}
	return deletePod(ctx, client)
}

// smokePod is a pod that passes the restricted level, with the kubelet's
// HTTP readiness probe, resource limits and a projected service-account
// token (the kube-root-ca.crt ConfigMap must exist for it).
func smokePod() *corev1.Pod {
	pod := restrictedPod(podName, image, []string{"-listen=:8080"})
	pod.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}}
	pod.Spec.Containers[0].ReadinessProbe = &corev1.Probe{
		ProbeHandler: corev1.ProbeHandler{
			HTTPGet: &corev1.HTTPGetAction{Path: "/readyz", Port: intstr.FromString("http")},
		},
		PeriodSeconds: 2,
	}
	return pod
}

// restrictedPod is a pod of one container that passes the restricted level,
// never pulled, with resource limits and the default projected
// service-account token.
func restrictedPod(name, podImage string, args []string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: corev1.PodSpec{
			TerminationGracePeriodSeconds: new(int64(5)),
			SecurityContext: &corev1.PodSecurityContext{
				RunAsNonRoot:   new(true),
				RunAsUser:      new(int64(65535)),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
			Containers: []corev1.Container{{
				Name:            "main",
				Image:           podImage,
				ImagePullPolicy: corev1.PullNever,
				Args:            args,
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{
						corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("16Mi"),
					},
					Limits: corev1.ResourceList{
						corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi"),
					},
				},
				SecurityContext: &corev1.SecurityContext{
					AllowPrivilegeEscalation: new(false),
					ReadOnlyRootFilesystem:   new(true),
					Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
				},
			}},
		},
	}
}

func podReady(pod *corev1.Pod) error {
	if pod.Status.Phase != corev1.PodRunning {
		return fmt.Errorf("phase %s", pod.Status.Phase)
	}
	for _, cond := range pod.Status.Conditions {
		if cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue {
			return nil
		}
	}
	return errors.New("running, not ready yet")
}

func deletePod(ctx context.Context, client kubernetes.Interface) error {
	start := time.Now()
	if err := client.CoreV1().Pods(namespace).Delete(ctx, podName, metav1.DeleteOptions{}); err != nil {
		return err
	}
	if err := poll(ctx, time.Minute, func() error {
		_, err := client.CoreV1().Pods(namespace).Get(ctx, podName, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return errors.New("still there")
	}); err != nil {
		return fmt.Errorf("deleting the pod: %w", err)
	}
	logf("pod deleted and torn down by the kubelet in %s", time.Since(start).Round(time.Millisecond))
	printCommand("iptables", "-w", "-t", "nat", "-S", "POSTROUTING")
	return nil
}

func poll(ctx context.Context, timeout time.Duration, check func() error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		err := check()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %w)", ctx.Err(), err)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func httpGet(ctx context.Context, url string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	return string(body), err
}

func printCommand(name string, args ...string) {
	out, err := exec.Command(name, args...).CombinedOutput()
	fmt.Printf("$ %s %s\n%s", name, strings.Join(args, " "), out)
	if err != nil {
		fmt.Printf("(%v)\n", err)
	}
}
