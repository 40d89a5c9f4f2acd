// Package deletionpolicy checks the ValidatingAdmissionPolicy that keeps
// the configured ConfigMap from being deleted or emptied without the
// allow-delete annotation (docs/behaviour.md#deleting-the-configmap), as
// `make deploy` installs it (`kustomize build config/default`), on a
// kube-apiserver where no manager runs: the apiserver enforces it alone.
package deletionpolicy

import (
	"bytes"
	"os/exec"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
	"github.com/nodeslo/nodeslo-controller/test/localcluster"
	"github.com/nodeslo/nodeslo-controller/test/testkit"
)

// The objects config/default deploys, by their deployed names.
const (
	policyName  = "nodeslo-controller-configmap-deletion-policy"
	bindingName = "nodeslo-controller-configmap-deletion-policy-binding"
)

// k8sClient is the administrator's: every request of the suite is one a
// person could make.
var k8sClient client.Client

func TestDeletionPolicy(t *testing.T) {
	envtestharness.RunSuite(t, "ConfigMap deletion policy suite")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	envtestharness.LogToGinkgo()
	env := envtestharness.Start(envtestharness.Options{})
	k8sClient = env.UnthrottledClient()
	for _, ns := range []string{sloconfig.DefaultConfigMapNamespace, otherNamespace} {
		Expect(k8sClient.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	}

	By("applying the policy and its binding as `kustomize build config/default` renders them")
	for _, obj := range deployedPolicy() {
		Expect(k8sClient.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj),
			client.FieldOwner(localcluster.FieldOwner), client.ForceOwnership)).
			To(Succeed(), "applying %s %s", obj.GetKind(), obj.GetName())
	}

	// A policy is enforced once the apiserver's informer has it, a moment
	// after its creation.
	By("waiting until the apiserver enforces it: a dry-run deletion of the ConfigMap is denied")
	probe := configMapObject(configKey)
	probe.Data = configData()
	Expect(k8sClient.Create(ctx, probe)).To(Succeed())
	Eventually(func() error {
		return k8sClient.Delete(ctx, configMapObject(configKey), client.DryRunAll)
	}).Should(MatchError(HaveSuffix(deletingDenial)))
	testkit.DeleteConfig(ctx, k8sClient, configKey)
})

// deployedPolicy returns the policy and its binding of `kustomize build
// config/default` (bin/kustomize, which make test installs), as they are
// deployed.
func deployedPolicy() []*unstructured.Unstructured {
	GinkgoHelper()
	kustomize := envtestharness.RepoPath("bin", "kustomize")
	Expect(kustomize).To(BeAnExistingFile(), "run `make kustomize` (make test does it first)")
	cmd := exec.Command(kustomize, "build", envtestharness.RepoPath("config", "default"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	Expect(err).NotTo(HaveOccurred(), "kustomize build config/default: %s", stderr.String())
	objs, err := localcluster.DecodeObjects(out)
	Expect(err).NotTo(HaveOccurred())
	var policy []*unstructured.Unstructured
	for _, want := range []struct{ kind, name string }{
		{"ValidatingAdmissionPolicy", policyName}, {"ValidatingAdmissionPolicyBinding", bindingName},
	} {
		found := false
		for _, obj := range objs {
			if obj.GetKind() == want.kind && obj.GetName() == want.name {
				policy, found = append(policy, obj), true
			}
		}
		Expect(found).To(BeTrue(), "kustomize build config/default renders no %s %s "+
			"(config/default/kustomization.yaml lists ../policy)", want.kind, want.name)
	}
	return policy
}
