package plugin

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
)

// The plugin's kubectl conventions against a real kube-apiserver
// (docs/kubectl-nodeslo.md#kubectls-conventions): no controller runs; the
// fixtures are what it would have written (ControllerRevisions with a
// rollout status, on the NodeSLORollout). Each spec runs the plugin as kubectl does, by its
// command line, with the admin's kubeconfig.

var (
	cluster *envtestharness.Environment
	// adminKubeconfig is the admin's; contextNamespaceKubeconfig the same
	// with its context's namespace set to teamNamespace.
	adminKubeconfig, contextNamespaceKubeconfig string
)

// teamNamespace holds a second slo-controller-config, as a ConfigMap
// outside koordinator-system would be (the controller's --config-namespace).
const teamNamespace = "team-a"

func TestPluginAgainstACluster(t *testing.T) {
	envtestharness.RunSuite(t, "kubectl nodeslo against a cluster")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	cluster = envtestharness.Start(envtestharness.Options{})
	dir := GinkgoT().TempDir()
	adminKubeconfig = filepath.Join(dir, "kubeconfig")
	Expect(os.WriteFile(adminKubeconfig, cluster.AdminKubeconfig, 0o600)).To(Succeed())
	config, err := clientcmd.Load(cluster.AdminKubeconfig)
	Expect(err).NotTo(HaveOccurred())
	config.Contexts[config.CurrentContext].Namespace = teamNamespace
	contextNamespaceKubeconfig = filepath.Join(dir, "kubeconfig-team-a")
	Expect(clientcmd.WriteToFile(*config, contextNamespaceKubeconfig)).To(Succeed())

	c := cluster.Client
	for _, ns := range []string{sloconfig.DefaultConfigMapNamespace, teamNamespace} {
		Expect(c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	}
	for name, pool := range map[string]string{batch1: poolBatch, batch2: poolBatch, web1: poolWeb} {
		Expect(c.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name,
			Labels: map[string]string{poolKey: pool}}})).To(Succeed())
	}
	putHistory(ctx, sloconfig.DefaultConfigMapNamespace, 60, 50)
	putHistory(ctx, teamNamespace, 70, 65, 62)
})

// clusterData is a configuration with a threshold and a paused policy
// under the retired rollout key: putHistory moves the policy to the
// NodeSLORollout.
func clusterData(threshold int) map[string]string {
	return statusData(threshold, true)
}

// putHistory creates the ConfigMap of namespace with the last of
// thresholds, one revision per threshold, the last in force, and the
// NodeSLORollout that holds the policy of the data's retired rollout key
// (spec.strategy, and spec.paused: true), the ConfigMap without that key,
// with the status the controller would have decided on them: the rollout
// of the last, paused.
func putHistory(ctx context.Context, namespace string, thresholds ...int) {
	GinkgoHelper()
	key := types.NamespacedName{Namespace: namespace, Name: sloconfig.DefaultConfigMapName}
	var data map[string]string
	for i, threshold := range thresholds {
		data = clusterData(threshold)
		r := keptRevision(int64(i+1), data)
		r.Outcome, r.ChangeCause = rollout.OutcomeSuperseded, fmt.Sprintf("threshold %d", threshold)
		if i == len(thresholds)-1 {
			r.Outcome = rollout.OutcomeInProgress
		}
		Expect(cluster.Client.Create(ctx, r.Object(key))).To(Succeed())
	}
	spec, err := decodeStrategy(data[string(sloconfig.KeyRollout)])
	Expect(err).NotTo(HaveOccurred())
	Expect(spec.Paused).To(BeTrue())
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: sloconfig.DefaultConfigMapName},
		Data: withoutRolloutKey(data)}
	Expect(cluster.Client.Create(ctx, cm)).To(Succeed())
	obj := &nodeslov1alpha1.NodeSLORollout{ObjectMeta: metav1.ObjectMeta{Namespace: namespace,
		Name: sloconfig.DefaultConfigMapName}, Spec: spec}
	Expect(cluster.Client.Create(ctx, obj)).To(Succeed())
	status := midRollout(data)
	status.Paused = true
	obj.Status = *status.DeepCopy()
	obj.Status.Revision = int64(len(thresholds))
	obj.Status.ObservedGeneration, obj.Status.ObservedConfigMapVersion = obj.Generation, cm.ResourceVersion
	Expect(cluster.Client.Status().Update(ctx, obj)).To(Succeed())
}

// storedRollout reads the NodeSLORollout of namespace.
func storedRollout(ctx context.Context, namespace string) *nodeslov1alpha1.NodeSLORollout {
	GinkgoHelper()
	obj := &nodeslov1alpha1.NodeSLORollout{}
	Expect(cluster.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: sloconfig.DefaultConfigMapName},
		obj)).To(Succeed())
	return obj
}

// storedConfigMap reads the ConfigMap of namespace.
func storedConfigMap(ctx context.Context, namespace string) *corev1.ConfigMap {
	GinkgoHelper()
	cm := &corev1.ConfigMap{}
	Expect(cluster.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: sloconfig.DefaultConfigMapName},
		cm)).To(Succeed())
	return cm
}

// runWith runs the plugin with args and the kubeconfig.
func runWith(kubeconfig string, args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = Execute(append(args, kubeconfigFlag, kubeconfig),
		IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	return code, out.String(), errOut.String()
}

// runAgainst runs the plugin with args and the admin's kubeconfig.
func runAgainst(args ...string) (code int, stdout, stderr string) {
	return runWith(adminKubeconfig, args...)
}

// completeAgainst runs __complete as kubectl_complete-nodeslo does, with
// the admin's kubeconfig given after the command's path (args up to the
// first flag), and returns the values completed for the last of args.
func completeAgainst(args ...string) []string {
	GinkgoHelper()
	// After the command's path, before its flags and arguments.
	at := len(args) - 1
	for i, a := range args[:at] {
		if strings.HasPrefix(a, "-") {
			at = i
			break
		}
	}
	words := append(append([]string{"__complete"}, args[:at]...), kubeconfigFlag, adminKubeconfig)
	words = append(words, args[at:]...)
	var out, errOut bytes.Buffer
	code := Execute(words, IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	Expect(code).To(Equal(ExitOK), errOut.String())
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	Expect(lines[len(lines)-1]).To(HavePrefix(":"), "the directive ends the output")
	return lines[:len(lines)-1]
}
