package plugin

import (
	"encoding/json"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

var _ = Describe("-n/--namespace", func() {
	It("names the ConfigMap's namespace: rollout pause -n team-a writes there and nowhere else", func(ctx SpecContext) {
		others := storedRollout(ctx, sloconfig.DefaultConfigMapNamespace).ResourceVersion
		cm := storedConfigMap(ctx, teamNamespace)
		before := storedRollout(ctx, teamNamespace)
		Expect(before.Spec.Strategy).NotTo(BeNil())
		Expect(before.Spec.Paused).To(BeTrue(), "the fixture's rollout is paused")

		// Paused already: resume lifts spec.paused first, so that pause writes.
		code, stdout, stderr := runAgainst(rolloutCmd, resumeCmd, "--namespace", teamNamespace)
		Expect(code).To(Equal(ExitOK), stderr)
		Expect(stdout).To(ContainSubstring("rollout resumed: spec.paused set to false on NodeSLORollout " +
			teamNamespace + "/slo-controller-config"))
		Expect(storedRollout(ctx, teamNamespace).Spec.Paused).To(BeFalse())
		Expect(storedRollout(ctx, teamNamespace).Generation).To(Equal(before.Generation+1),
			"the spec's write is a new generation")

		code, stdout, stderr = runAgainst(rolloutCmd, pauseCmd, "-n", teamNamespace)
		Expect(code).To(Equal(ExitOK), stderr)
		Expect(stdout).To(ContainSubstring("spec.paused set on NodeSLORollout " + teamNamespace + "/slo-controller-config"))
		after := storedRollout(ctx, teamNamespace)
		Expect(after.Spec.Paused).To(BeTrue())
		Expect(after.Generation).To(Equal(before.Generation+2), "the spec's write is a new generation")
		Expect(after.Spec.Strategy).To(Equal(before.Spec.Strategy), "spec.strategy is not written")

		Expect(storedConfigMap(ctx, teamNamespace)).To(Equal(cm), "the ConfigMap is not written")
		Expect(storedRollout(ctx, sloconfig.DefaultConfigMapNamespace).ResourceVersion).To(Equal(others))
	})

	It("is not taken from the kubeconfig's context: without -n the ConfigMap is koordinator-system's",
		func(ctx SpecContext) {
			before := storedConfigMap(ctx, teamNamespace).ResourceVersion
			code, stdout, stderr := runWith(contextNamespaceKubeconfig, rolloutCmd, historyCmd, "-o", "json")
			Expect(code).To(Equal(ExitOK), stderr)
			var h HistoryOutput
			Expect(json.Unmarshal([]byte(stdout), &h)).To(Succeed())
			Expect(h.ConfigMap).To(Equal("koordinator-system/slo-controller-config"))
			Expect(h.Revisions).To(HaveLen(2))
			Expect(storedConfigMap(ctx, teamNamespace).ResourceVersion).To(Equal(before))
		})
})

var _ = Describe("-l/--selector and -o", func() {
	It("explain explains each node named or selected, once, by name; -o json lists them", func() {
		code, stdout, stderr := runAgainst(explainCmd, web1, "-l", "pool=batch", batch1, "-o", "json")
		Expect(code).To(Equal(ExitOK), stderr)
		var list ExplanationList
		Expect(json.Unmarshal([]byte(stdout), &list)).To(Succeed())
		nodes := make([]string, 0, len(list.Items))
		for _, e := range list.Items {
			nodes = append(nodes, e.Node)
			Expect(e.ConfigMap).To(Equal("koordinator-system/slo-controller-config"))
			Expect(e.NodeSLO.Found).To(BeFalse())
			Expect(e.NodeSLO.RevisionInForce).To(Equal(int64(2)))
		}
		Expect(nodes).To(Equal([]string{batch1, batch2, web1}))

		code, stdout, stderr = runAgainst(explainCmd, batch2, web1)
		Expect(code).To(Equal(ExitOK), stderr)
		Expect(stdout).To(MatchRegexp(`(?s)^Node:      batch-2\n.*\n---\nNode:      web-1\n`))

		code, _, stderr = runAgainst(explainCmd, "-l", "pool=none")
		Expect(code).To(Equal(ExitError))
		Expect(stderr).To(Equal("error: no node matches the selector pool=none\n"))
	})

	It("diff -l compares only the nodes selected; -o yaml prints the documented structure", func() {
		file := filepath.Join(GinkgoT().TempDir(), "cm.yaml")
		Expect(os.WriteFile(file, []byte("kind: ConfigMap\nmetadata: {name: slo-controller-config}\ndata: {}\n"),
			0o600)).To(Succeed())
		code, stdout, stderr := runAgainst(diffCmd, "-f", file, "-l", "pool=batch", "-o", "yaml")
		Expect(code).To(Equal(ExitChanges), stderr)
		var d DiffOutput
		Expect(yaml.UnmarshalStrict([]byte(stdout), &d)).To(Succeed())
		Expect(d.Nodes).To(Equal(2))
		Expect(d.Created).To(Equal(2))
		Expect(d.Changes).To(HaveLen(2))
		Expect(d.Changes[0].Node).To(Equal(batch1))
	})

	It("summary counts the nodes selected, per strategy, and says the rollout is held", func() {
		code, stdout, stderr := runAgainst(summaryCmd, "-o", "json")
		Expect(code).To(Equal(ExitOK), stderr)
		var s Summary
		Expect(json.Unmarshal([]byte(stdout), &s)).To(Succeed())
		Expect(s.Nodes).To(Equal(NodeCounts{Total: 3, Held: 3, WithoutNodeSLO: 3}))
		Expect(s.Rollout.State).To(Equal(rolloutHeld))
		Expect(s.RevisionInForce).To(Equal(int64(2)))

		code, stdout, stderr = runAgainst(summaryCmd, "-l", "pool=web")
		Expect(code).To(Equal(ExitOK), stderr)
		Expect(stdout).To(ContainSubstring("Nodes: 1; up to date 0, pending 0, held 1 (without a NodeSLO: 1)\n"))
		Expect(stdout).To(MatchRegexp(`resource-threshold-config +valid +cluster strategy +1\n`))
	})

	It("rollout status -o json prints the status once, with --watch=false", func() {
		code, stdout, stderr := runAgainst(rolloutCmd, statusCmd, "--watch=false", "-o", "json", "-n", teamNamespace)
		Expect(code).To(Equal(ExitOK), stderr)
		var s RolloutStatusOutput
		Expect(json.Unmarshal([]byte(stdout), &s)).To(Succeed())
		Expect(s.RevisionInForce).To(Equal(int64(3)))
		Expect(s.Status).NotTo(BeNil())
		Expect(s.Status.Reached).To(Equal(int32(3)))
		Expect(s.NodeSLORolloutExists).To(BeTrue())
	})
})

var _ = Describe("rollout undo --dry-run=server", func() {
	It("sends the write as a dry run: the apiserver answers, nothing is stored", func(ctx SpecContext) {
		before := storedConfigMap(ctx, sloconfig.DefaultConfigMapNamespace).ResourceVersion
		code, stdout, stderr := runAgainst(rolloutCmd, undoCmd, "--dry-run=server")
		Expect(code).To(Equal(ExitOK), stderr)
		Expect(stdout).To(HavePrefix("Undo to revision 1 would write keys resource-threshold-config of ConfigMap " +
			"koordinator-system/slo-controller-config (dry run: nothing written; server dry run: the apiserver " +
			"and its admission accepted the write):\n"))
		Expect(storedConfigMap(ctx, sloconfig.DefaultConfigMapNamespace).ResourceVersion).To(Equal(before))
	})
})

var _ = Describe("rollout undo of a ConfigMap Argo CD syncs", func() {
	It("writes nothing without --force and prints the ConfigMap to commit; --force writes it", func(ctx SpecContext) {
		const namespace = "argo-a"
		key := types.NamespacedName{Namespace: namespace, Name: sloconfig.DefaultConfigMapName}
		c := cluster.Client
		Expect(c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}})).To(Succeed())
		for i, threshold := range []int{60, 50} {
			Expect(c.Create(ctx, keptRevision(int64(i+1), clusterData(threshold)).Object(key))).To(Succeed())
		}
		Expect(c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace,
			Name: sloconfig.DefaultConfigMapName}, Data: clusterData(50)},
			client.FieldOwner("argocd-controller"))).To(Succeed())
		before := storedConfigMap(ctx, namespace)

		code, stdout, stderr := runAgainst(rolloutCmd, undoCmd, "-n", namespace)
		Expect(code).To(Equal(ExitError))
		Expect(stderr).To(HavePrefix("error: ConfigMap argo-a/slo-controller-config is synced from Git by " +
			"Argo CD (field manager argocd-controller), which would put Git's data back: the undo belongs in Git"))
		var printed corev1.ConfigMap
		Expect(yaml.UnmarshalStrict([]byte(stdout), &printed)).To(Succeed())
		Expect(printed.Data).To(Equal(clusterData(60)))
		Expect(storedConfigMap(ctx, namespace)).To(Equal(before))

		code, _, stderr = runAgainst(rolloutCmd, undoCmd, "-n", namespace, "--force")
		Expect(code).To(Equal(ExitOK), stderr)
		Expect(stderr).To(ContainSubstring("the undo is written (--force)"))
		Expect(storedConfigMap(ctx, namespace).Data).To(Equal(clusterData(60)))
	})
})

var _ = Describe("Completion through __complete", func() {
	It("completes node names from the cluster, without those already given", func() {
		Expect(completeAgainst(explainCmd, "")).To(Equal([]string{batch1, batch2, web1}))
		Expect(completeAgainst(explainCmd, batch1, "")).To(Equal([]string{batch2, web1}))
		Expect(completeAgainst(explainCmd, "w")).To(Equal([]string{web1}))
	})

	It("completes revisions, newest first, of the ConfigMap -n names", func() {
		Expect(completeAgainst(rolloutCmd, undoCmd, "--to-revision", "")).To(Equal([]string{
			"2\tInProgress, in force: threshold 50", "1\tSuperseded: threshold 60"}))
		Expect(completeAgainst(rolloutCmd, historyCmd, "-n", teamNamespace, "--revision", "")).To(Equal([]string{
			"3\tInProgress, in force: threshold 62", "2\tSuperseded: threshold 65", "1\tSuperseded: threshold 70"}))
	})
})
