package faultproxy

import (
	"context"
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// tokenLifetime outlives any suite; the apiserver may grant more.
const tokenLifetime int64 = 3600

// ServiceAccountToken asks the apiserver, as admin, for a token of the
// existing ServiceAccount namespace/name (a TokenRequest, as the kubelet
// does for a pod): a client with it is the ServiceAccount to RBAC and the
// audit log, through the proxy or not.
func ServiceAccountToken(ctx context.Context, admin *rest.Config, namespace, name string) (string, error) {
	clientset, err := kubernetes.NewForConfig(admin)
	if err != nil {
		return "", fmt.Errorf("faultproxy: a client for TokenRequests: %w", err)
	}
	lifetime := tokenLifetime
	token, err := clientset.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &lifetime}},
		metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("faultproxy: a token of ServiceAccount %s/%s: %w", namespace, name, err)
	}
	return token.Status.Token, nil
}
