package faultproxy

import (
	"context"
	"fmt"
	"sync"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// identities names the user behind a bearer token the way the apiserver
// does, by asking it (a TokenReview with the upstream's credentials), so
// that a rule's User is the name RBAC and the audit log use. The answer is
// kept per token: a token names one user for its life. A failed review is
// not kept, and is asked again on the next request.
type identities struct {
	reviews kubernetes.Interface
	mu      sync.Mutex
	byToken map[string]string
}

func newIdentities(reviews kubernetes.Interface) *identities {
	return &identities{reviews: reviews, byToken: map[string]string{}}
}

// userOf returns the user the apiserver will act as for req: the
// impersonated user when the client impersonates one, else the token's.
func (ids *identities) userOf(ctx context.Context, req Request) (string, error) {
	if req.impersonated != "" {
		return req.impersonated, nil
	}
	if req.token == "" {
		return "", nil
	}
	ids.mu.Lock()
	user, known := ids.byToken[req.token]
	ids.mu.Unlock()
	if known {
		return user, nil
	}
	review, err := ids.reviews.AuthenticationV1().TokenReviews().Create(ctx,
		&authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: req.token}},
		metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("reviewing a client's token: %w", err)
	}
	if !review.Status.Authenticated {
		user = ""
	} else {
		user = review.Status.User.Username
	}
	ids.mu.Lock()
	ids.byToken[req.token] = user
	ids.mu.Unlock()
	return user, nil
}
