package testkit

import (
	"context"
	"encoding/json"
	"maps"

	. "github.com/onsi/ginkgo/v2" //nolint:staticcheck // the kit is Ginkgo's, like the suites that use it
	. "github.com/onsi/gomega"    //nolint:staticcheck // the kit is Gomega's, like the suites that use it
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Policy is a rollout policy as the specs write it: the NodeSLORollout's
// spec.strategy as JSON, with "paused" for its spec.paused beside it.
type Policy struct {
	nodeslov1alpha1.RolloutStrategy
	Paused bool `json:"paused"`
}

// SplitPolicy takes the policy out of a spec's data: the specs keep a
// ConfigMap's data and its rollout policy together, under the key
// sloconfig.KeyRollout, and this splits them into what the ConfigMap
// holds and the policy ("": none).
func SplitPolicy(data map[string]string) (map[string]string, string) {
	policy, ok := data[string(sloconfig.KeyRollout)]
	if !ok {
		return data, ""
	}
	rest := maps.Clone(data)
	delete(rest, string(sloconfig.KeyRollout))
	return rest, policy
}

// SetStrategy makes the NodeSLORollout of key hold policy ("": no
// strategy, not paused), created when missing, its controls (resume,
// retry) kept. It returns whether it was created.
func SetStrategy(ctx context.Context, c client.Client, key client.ObjectKey, policy string) bool {
	GinkgoHelper()
	var p Policy
	if policy != "" {
		Expect(json.Unmarshal([]byte(policy), &p)).To(Succeed(), "the spec's policy %s", policy)
	}
	created := false
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		obj := &nodeslov1alpha1.NodeSLORollout{}
		err := c.Get(ctx, key, obj)
		if apierrors.IsNotFound(err) {
			obj.Namespace, obj.Name = key.Namespace, key.Name
			obj.Spec.Paused = p.Paused
			if policy != "" {
				obj.Spec.Strategy = &p.RolloutStrategy
			}
			created = true
			return c.Create(ctx, obj)
		}
		if err != nil {
			return err
		}
		obj.Spec.Strategy, obj.Spec.Paused = nil, p.Paused
		if policy != "" {
			obj.Spec.Strategy = &p.RolloutStrategy
		}
		return c.Update(ctx, obj)
	})).To(Succeed(), "setting the strategy of NodeSLORollout %s", key)
	return created
}
