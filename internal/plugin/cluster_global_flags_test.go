package plugin

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// nowhereContext is a context of twoContextsKubeconfig whose server nothing
// listens on: a command sent there fails, naming the address.
const (
	nowhereContext = "nowhere"
	nowhereServer  = "https://127.0.0.1:1"
)

// twoContextsKubeconfig writes the admin's kubeconfig with a second context,
// nowhereContext, made the current one; it returns the file and the
// admin's context.
func twoContextsKubeconfig() (path, adminContext string) {
	GinkgoHelper()
	config, err := clientcmd.Load(cluster.AdminKubeconfig)
	Expect(err).NotTo(HaveOccurred())
	adminContext = config.CurrentContext
	admin := config.Contexts[adminContext]
	config.Clusters[nowhereContext] = &clientcmdapi.Cluster{Server: nowhereServer, InsecureSkipTLSVerify: true}
	config.Contexts[nowhereContext] = &clientcmdapi.Context{Cluster: nowhereContext, AuthInfo: admin.AuthInfo}
	config.CurrentContext = nowhereContext
	path = filepath.Join(GinkgoT().TempDir(), "kubeconfig-two-contexts")
	Expect(clientcmd.WriteToFile(*config, path)).To(Succeed())
	return path, adminContext
}

// runLine runs the plugin with args exactly as given: no flag added.
func runLine(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = Execute(args, IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	return code, out.String(), errOut.String()
}

// historyOf parses `rollout history -o json` and says whose history it is.
func historyOf(stdout string) string {
	GinkgoHelper()
	var h HistoryOutput
	Expect(json.Unmarshal([]byte(stdout), &h)).To(Succeed(), stdout)
	return h.ConfigMap
}

var _ = Describe("kubectl's connection flags, anywhere on the line", func() {
	It("take --kubeconfig and --context before the subcommand as after it; given twice, the last wins", func() {
		kubeconfig, admin := twoContextsKubeconfig()
		for _, args := range [][]string{
			{kubeconfigFlag, kubeconfig, contextFlag, admin, rolloutCmd, historyCmd, "-o", formatJSON},
			{rolloutCmd, historyCmd, "-o", formatJSON, kubeconfigFlag, kubeconfig, contextFlag, admin},
			{kubeconfigFlag, kubeconfig, rolloutCmd, "--context=" + admin, historyCmd, "-o", formatJSON},
			// A flag without a value before the subcommand is not taken for one with a value.
			{"--disable-compression", contextFlag, admin, kubeconfigFlag, kubeconfig, rolloutCmd, historyCmd,
				"-o", formatJSON},
			{contextFlag, nowhereContext, kubeconfigFlag, kubeconfig, rolloutCmd, historyCmd, contextFlag, admin,
				"-o", formatJSON},
		} {
			code, stdout, stderr := runLine(args...)
			Expect(code).To(Equal(ExitOK), "%v: %s", args, stderr)
			Expect(historyOf(stdout)).To(Equal("koordinator-system/slo-controller-config"), "%v", args)
		}

		// The context given last, after the subcommand, is nowhere's.
		code, stdout, stderr := runLine(contextFlag, admin, kubeconfigFlag, kubeconfig, rolloutCmd, historyCmd,
			contextFlag, nowhereContext)
		Expect(code).To(Equal(ExitError))
		Expect(stdout).To(BeEmpty())
		Expect(stderr).To(HavePrefix("error: "))
		Expect(stderr).To(ContainSubstring("127.0.0.1:1"))
	})

	It("take -n before the subcommand: it names the ConfigMap's namespace, the last one given wins", func() {
		code, stdout, stderr := runLine("-n", teamNamespace, kubeconfigFlag, adminKubeconfig, rolloutCmd, historyCmd,
			"-o", formatJSON)
		Expect(code).To(Equal(ExitOK), stderr)
		Expect(historyOf(stdout)).To(Equal(teamNamespace + "/slo-controller-config"))

		code, stdout, stderr = runLine("-n", teamNamespace, rolloutCmd, historyCmd, "--namespace",
			sloconfig.DefaultConfigMapNamespace, "-o", formatJSON, kubeconfigFlag, adminKubeconfig)
		Expect(code).To(Equal(ExitOK), stderr)
		Expect(historyOf(stdout)).To(Equal("koordinator-system/slo-controller-config"))

		// -n before and --config-namespace after still have to agree.
		code, _, stderr = runLine("-n", teamNamespace, rolloutCmd, historyCmd, configNamespaceOpt,
			sloconfig.DefaultConfigMapNamespace, kubeconfigFlag, adminKubeconfig)
		Expect(code).To(Equal(ExitError))
		Expect(stderr).To(HavePrefix("error: -n team-a and --config-namespace koordinator-system name different"))
	})

	It("complete with the flags given before the subcommand", func() {
		kubeconfig, admin := twoContextsKubeconfig()
		code, stdout, stderr := runLine("__complete", kubeconfigFlag, kubeconfig, contextFlag, admin, explainCmd, "w")
		Expect(code).To(Equal(ExitOK), stderr)
		Expect(strings.Split(stdout, "\n")[0]).To(Equal(web1))
	})
})
