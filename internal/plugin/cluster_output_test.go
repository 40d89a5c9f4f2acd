package plugin

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// expectPrinted runs the plugin against the cluster and expects exit
// status code and stdout.
func expectPrinted(code int, want string, args ...string) {
	GinkgoHelper()
	got, stdout, stderr := runAgainst(args...)
	Expect(got).To(Equal(code), "%v: %s", args, stderr)
	Expect(stdout).To(Equal(want), "%v", args)
}

var _ = Describe("-o, each of kubectl's forms, on the commands that read the cluster", func() {
	It("rollout history: name, jsonpath, jsonpath-as-json, custom-columns, wide; --revision too", func() {
		expectPrinted(ExitOK, "controllerrevision.apps/slo-controller-config-r1\n"+
			"controllerrevision.apps/slo-controller-config-r2\n", rolloutCmd, historyCmd, "-o", "name")
		expectPrinted(ExitOK, "Superseded InProgress", rolloutCmd, historyCmd, "-o", "jsonpath={.revisions[*].outcome}")
		expectPrinted(ExitOK, "[\n    1,\n    2\n]\n", rolloutCmd, historyCmd,
			"-o", "jsonpath-as-json={.revisions[*].revision}")
		expectPrinted(ExitOK, "REVISION   CAUSE          IN FORCE\n1          threshold 60   false\n"+
			"2          threshold 50   true\n", rolloutCmd, historyCmd,
			"-o", "custom-columns=REVISION:.revision,CAUSE:.changeCause,IN FORCE:.inForce")
		expectPrinted(ExitOK, "controllerrevision.apps/slo-controller-config-r1\n",
			rolloutCmd, historyCmd, "--revision", "1", "-o", "name")
		expectPrinted(ExitOK, threshold+".clusterStrategy.cpuSuppressThresholdPercent=60", rolloutCmd, historyCmd,
			"--revision", "1", "-o", "jsonpath={.changesFromInForce[0].path}={.changesFromInForce[0].new}")

		code, stdout, stderr := runAgainst(rolloutCmd, historyCmd, "-o", "wide")
		Expect(code).To(Equal(ExitOK), stderr)
		lines := strings.Split(stdout, "\n")
		Expect(lines[0]).To(MatchRegexp(`^REVISION +AGE +CHANGED BY +KEYS CHANGED +REACHED +OUTCOME +CONFIGURATION +` +
			`CONTROLLERREVISION +CHANGE-CAUSE$`))
		Expect(lines[2]).To(MatchRegexp(`^2 .* InProgress \(in force\) +[0-9a-f]{12} +slo-controller-config-r2 ` +
			`+threshold 50$`))
	})

	It("explain, diff, summary, rollout status: name and the templates read their structures", func() {
		expectPrinted(ExitOK, "node/batch-1\nnode/batch-2\n", explainCmd, "-l", "pool=batch", "-o", "name")
		expectPrinted(ExitOK, "NODE      REVISION\nbatch-1   2\nweb-1     2\n", explainCmd, batch1, web1,
			"-o", "custom-columns=NODE:.node,REVISION:.nodeSLO.revisionInForce")

		file := filepath.Join(GinkgoT().TempDir(), "cm.yaml")
		Expect(os.WriteFile(file, []byte("kind: ConfigMap\nmetadata: {name: slo-controller-config}\ndata: {}\n"),
			0o600)).To(Succeed())
		expectPrinted(ExitChanges, "nodeslo.slo.koordinator.sh/batch-1\nnodeslo.slo.koordinator.sh/batch-2\n",
			diffCmd, "-f", file, "-l", "pool=batch", "-o", "name")
		expectPrinted(ExitChanges, "2 of 2", diffCmd, "-f", file, "-l", "pool=batch", "-o",
			"jsonpath={.created} of {.nodes}")

		expectPrinted(ExitOK, "configmap/slo-controller-config\n", summaryCmd, "-o", "name")
		expectPrinted(ExitOK, "3", summaryCmd, "-o", "jsonpath={.nodes.total}")
		code, stdout, stderr := runAgainst(summaryCmd, "-o", "wide")
		Expect(code).To(Equal(ExitOK), stderr)
		Expect(stdout).To(MatchRegexp(`(?m)^KEY +VALIDITY +WARNINGS +APPLIES +NODES$`))
		Expect(stdout).To(MatchRegexp(`(?m)^resource-threshold-config +valid +0 +cluster strategy +3$`))

		expectPrinted(ExitOK, "nodeslorollout.nodeslo.koordinator.sh/slo-controller-config\n",
			rolloutCmd, statusCmd, "--watch=false", "-n", teamNamespace, "-o", "name")
		expectPrinted(ExitOK, "CONFIGMAP                      REVISION   ROLLOUT\n"+
			"team-a/slo-controller-config   3          true\n", rolloutCmd, statusCmd, "--watch=false", "-n",
			teamNamespace, "-o", "custom-columns=CONFIGMAP:.configMap,REVISION:.revisionInForce,ROLLOUT:.nodeSLORolloutExists")
		_, text, _ := runAgainst(rolloutCmd, statusCmd, "--watch=false", "-n", teamNamespace)
		expectPrinted(ExitOK, text, rolloutCmd, statusCmd, "--watch=false", "-n", teamNamespace, "-o", "wide")
	})
})
