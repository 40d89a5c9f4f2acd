package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeslo/nodeslo-controller/test/nodecluster"
)

// checkKubernetesService proves the ClusterIP path from a pod: a Pod runs
// the pause binary with -check-apiserver, an in-cluster client that reaches
// the apiserver at KUBERNETES_SERVICE_HOST (the kubernetes Service's
// ClusterIP, 10.96.0.1) through kube-proxy's rules, verifies its
// certificate against the pod's ca.crt and authenticates with the pod's
// token. It passes when the apiserver's /version is the cluster's own and
// the SelfSubjectReview names the pod's ServiceAccount.
func checkKubernetesService(ctx context.Context, cluster *nodecluster.Cluster) error {
	client := cluster.Clientset()
	service, err := client.CoreV1().Services("default").Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil {
		return err
	}
	server, err := client.Discovery().ServerVersion()
	if err != nil {
		return err
	}
	printCommand("iptables", "-w", "-t", "nat", "-S", "KUBE-SERVICES")
	const name = "apiserver-client"
	log, err := runToCompletion(ctx, cluster, name, image, []string{"-check-apiserver"})
	if err != nil {
		return fmt.Errorf("the kubernetes Service from a pod: %w", err)
	}
	want := []string{
		fmt.Sprintf("GET https://%s:443/version: gitVersion=%s ", service.Spec.ClusterIP, server.GitVersion),
		fmt.Sprintf("username=system:serviceaccount:%s:default ", namespace),
	}
	for _, w := range want {
		if !strings.Contains(log, w) {
			return fmt.Errorf("the kubernetes Service from a pod: %q not in its log:\n%s", w, log)
		}
	}
	logf("the kubernetes Service (ClusterIP %s) answered a pod as the apiserver %s",
		service.Spec.ClusterIP, server.GitVersion)
	return nil
}

// runToCompletion runs a restricted Pod that is meant to exit (restartPolicy
// Never), waits for it to succeed, and returns its log; it deletes the Pod
// either way.
func runToCompletion(ctx context.Context, cluster *nodecluster.Cluster, name, podImage string, args []string,
	edit ...func(*corev1.Container),
) (string, error) {
	client := cluster.Clientset()
	pod := restrictedPod(name, podImage, args)
	pod.Spec.RestartPolicy = corev1.RestartPolicyNever
	pod.Spec.Containers[0].ReadinessProbe = nil
	pod.Spec.Containers[0].Ports = nil
	for _, e := range edit {
		e(&pod.Spec.Containers[0])
	}
	start := time.Now()
	if _, err := client.CoreV1().Pods(namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		return "", err
	}
	defer func() {
		_ = client.CoreV1().Pods(namespace).Delete(context.WithoutCancel(ctx), name, metav1.DeleteOptions{})
	}()
	var phase corev1.PodPhase
	err := poll(ctx, 2*time.Minute, func() error {
		got, err := client.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		phase = got.Status.Phase
		if phase == corev1.PodSucceeded || phase == corev1.PodFailed {
			return nil
		}
		return fmt.Errorf("phase %s", phase)
	})
	out, logErr := exec.CommandContext(ctx, cluster.Kubectl(), "--kubeconfig", cluster.Kubeconfig(),
		"logs", "-n", namespace, name).CombinedOutput()
	fmt.Printf("$ kubectl logs -n %s %s\n%s", namespace, name, out)
	if err != nil {
		kubectl(cluster, "describe", "pod", "-n", namespace, name)
		return "", err
	}
	if phase != corev1.PodSucceeded {
		return "", fmt.Errorf("pod %s ended %s", name, phase)
	}
	if logErr != nil {
		return "", errors.Join(logErr, errors.New(string(out)))
	}
	logf("pod %s/%s Succeeded %s after its creation", namespace, name, time.Since(start).Round(time.Millisecond))
	return string(out), nil
}
