//go:build image

package image

import (
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeslo/nodeslo-controller/internal/manager"
	"github.com/nodeslo/nodeslo-controller/test/localcluster"
)

// Longer than the harness's defaults: a container starts, syncs its cache
// and answers its probes within these, and each look may run podman or
// kubectl, so it looks less often.
const (
	converge = 60 * time.Second
	poll     = 250 * time.Millisecond
)

// The two ways the project ships its Deployment; each runs the same specs.
var (
	_ = describeShippedDeployment("config/default (make deploy)", renderKustomize)
	_ = describeShippedDeployment("dist/chart (helm, default values)", renderChart)
)

// shipped is one rendering running: its control plane and its container.
type shipped struct {
	manifests  manifests
	deployment *appsv1.Deployment
	container  corev1.Container
	// options are the manager's settings as the Deployment's args give them,
	// parsed by the manager's own flags (lease name, webhook port).
	options manager.Options
	kube    *kubectl
	cluster *localcluster.Cluster
	// flags and args start a container as the Deployment says.
	flags, args []string
	// running is the container started last.
	running *container
}

// describeShippedDeployment declares the specs of one rendering. It returns
// Describe's result so that it can be declared at package level (var _ =).
//
//nolint:unparam // the result is only there for that declaration
func describeShippedDeployment(name string, render func() manifests) bool {
	// ContinueOnFailure: each pass condition is reported on its own; the
	// container and the control plane are shared only to save their start.
	return Describe("the image run as "+name+"'s Deployment", Ordered, ContinueOnFailure, func() {
		s := &shipped{}

		BeforeAll(func() {
			s.manifests = render()
			s.deployment = s.manifests.deployment()
			s.container = s.deployment.Spec.Template.Spec.Containers[0]
			s.options = parseManagerArgs(s.container.Args)

			By("checking runAsNonRoot against the image's USER, as the kubelet does")
			var inspected []imageConfig
			Expect(json.Unmarshal([]byte(podman.mustRun("image", "inspect", imageName)), &inspected)).To(Succeed())
			mustBeNonRootUser(s.deployment, inspected[0].Config.User)

			s.startControlPlane()
			host := s.installManifests()
			s.flags, s.args = podmanFlags(s.deployment, host)
			s.running = s.start("first")
			s.running.waitReady(s.probeURL(s.container.ReadinessProbe))
		})

		It("answers the liveness and readiness probes on the Deployment's ports and paths", func() {
			for _, probe := range []*corev1.Probe{s.container.LivenessProbe, s.container.ReadinessProbe} {
				Expect(probe).NotTo(BeNil())
				Expect(httpStatus(s.probeURL(probe))).To(Equal(200), "GET %s", s.probeURL(probe))
			}
		})

		It("collects garbage to stay under 90 % of the Deployment's memory limit (GOMEMLIMIT)", func() {
			limit, ok := s.container.Resources.Limits[corev1.ResourceMemory]
			Expect(ok).To(BeTrue(), "the Deployment sets no memory limit")
			want := fmt.Sprintf(`"msg":"Soft memory limit","bytes":%d,"from":"CONTAINER_MEMORY_LIMIT"`,
				limit.Value()/100*90)
			Expect(s.running.logs()).To(ContainSubstring(want))
		})

		It("writes every sample Node its NodeSLO", func() {
			s.kube.mustRun("apply", "--server-side", "-k", filepath.Join(root, "config", "samples"))
			Eventually(func(g Gomega) {
				out, err := s.kube.run("get", "nodeslo", "--no-headers")
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(rows(out)).To(ConsistOf(sampleNodeSLORows))
			}).WithTimeout(converge).WithPolling(poll).Should(Succeed())
		})

		It("denies a broken ConfigMap through the container's webhook, naming the key and path", func() {
			broken := brokenSampleConfigMap()
			_, err := s.kube.runWithInput(broken, "apply", "--server-side", "--force-conflicts", "-f", "-")
			// kubectl prints the webhook's Invalid status by its causes; the
			// apiserver itself never validates a ConfigMap's data.
			Expect(err).To(MatchError(And(
				ContainSubstring(`The ConfigMap "slo-controller-config" is invalid`),
				ContainSubstring(brokenKey+": "+brokenPath+": Invalid value"))),
				"the webhook fails open (failurePolicy Ignore): an admitted ConfigMap means the apiserver "+
					"did not reach the container's webhook server")
		})

		It("serves metrics over HTTPS to a metrics-reader token only", func() {
			reader := s.metricsReaderRole()
			s.kube.mustRun("create", "serviceaccount", "scraper", "-n", namespace)
			s.kube.mustRun("create", "serviceaccount", "stranger", "-n", namespace)
			s.kube.mustRun("create", "clusterrolebinding", "scraper",
				"--clusterrole="+reader, "--serviceaccount="+namespace+":scraper")
			granted := strings.TrimSpace(s.kube.mustRun("create", "token", "scraper", "-n", namespace))
			refused := strings.TrimSpace(s.kube.mustRun("create", "token", "stranger", "-n", namespace))
			metrics := fmt.Sprintf("https://127.0.0.1:%d/metrics", containerPort(s.container, "https"))

			Eventually(func(g Gomega) {
				status, body := httpsGet(metrics, granted)
				g.Expect(status).To(Equal(200), body)
				g.Expect(body).To(ContainSubstring("controller_runtime_reconcile_total"))
			}).WithTimeout(converge).WithPolling(time.Second).Should(Succeed())
			status, body := httpsGet(metrics, refused)
			Expect(status).To(Equal(403), "a token without %s: %s", reader, body)
			status, body = httpsGet(metrics, "")
			Expect(status).To(Equal(401), "no token: %s", body)
		})

		It("stops on SIGTERM with exit 0 within terminationGracePeriodSeconds; "+
			"a second container takes the Lease at once", func() {
			grace := time.Duration(*s.deployment.Spec.Template.Spec.TerminationGracePeriodSeconds) * time.Second
			lease := s.options.LeaderElectionID
			Expect(s.leaseHolder(lease)).To(HavePrefix(s.running.name+"_"), "the first container leads")

			By("stopping it as the kubelet does: SIGTERM, then SIGKILL after the grace period")
			stopped := s.running.stop(grace)
			Expect(s.running.exitCode()).To(Equal(0),
				"exit code (137 is the kubelet's SIGKILL after %s)", grace)
			printFigure("%s: SIGTERM to exit %v (grace %v)", name, stopped.Round(time.Millisecond), grace)
			Expect(s.leaseHolder(lease)).To(BeEmpty(), "the stopped leader released the Lease")

			second := s.start("second")
			s.running = second
			Eventually(func() string { return s.leaseHolder(lease) }).
				WithTimeout(converge).WithPolling(100 * time.Millisecond).Should(HavePrefix(second.name + "_"))
			printFigure("%s: second container start to Lease held %v", name,
				time.Since(second.started).Round(time.Millisecond))
			second.waitReady(s.probeURL(s.container.ReadinessProbe))
		})
	})
}

// startControlPlane starts kube-apiserver and etcd without any CRD: the
// rendering installs its own.
func (s *shipped) startControlPlane() {
	GinkgoHelper()
	By("starting kube-apiserver and etcd")
	var err error
	s.cluster, err = localcluster.Start(localcluster.Options{
		AssetsDir: os.Getenv("KUBEBUILDER_ASSETS"),
		CRDDir:    GinkgoT().TempDir(),
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		By("stopping the control plane")
		Expect(s.cluster.Stop()).To(Succeed())
	})
	kubeconfig := filepath.Join(GinkgoT().TempDir(), "admin.kubeconfig")
	Expect(os.WriteFile(kubeconfig, s.cluster.AdminKubeconfig, 0o600)).To(Succeed())
	s.kube = newKubectl(kubeconfig)
}

// installManifests applies what the control plane can hold and returns what
// the kubelet would give the pod: the apiserver's address, a token of the
// Deployment's ServiceAccount, and the webhook's serving certificate.
func (s *shipped) installManifests() podHost {
	GinkgoHelper()
	spec := s.deployment.Spec.Template.Spec
	secrets := map[string]string{}
	var cert *servingCert
	for _, v := range spec.Volumes {
		if v.Secret == nil {
			continue
		}
		Expect(cert).To(BeNil(), "%s: more than one Secret volume", s.manifests.source)
		cert = newServingCert(s.manifests.certificate(v.Secret.SecretName))
		secrets[v.Secret.SecretName] = cert.dir
	}

	// The webhook is called at the container's port through the Service's
	// mapping, on loopback, with the stand-in certificate's CA.
	callContainer := func(cfg *admissionregistrationv1.ValidatingWebhookConfiguration) {
		Expect(cert).NotTo(BeNil(), "%s: a webhook configuration, but no certificate mounted", s.manifests.source)
		for i := range cfg.Webhooks {
			cc := &cfg.Webhooks[i].ClientConfig
			Expect(cc.Service).NotTo(BeNil())
			u := fmt.Sprintf("https://127.0.0.1:%d%s", s.manifests.serviceTarget(cc.Service, s.container),
				ptrOr(cc.Service.Path, "/"))
			cc.Service, cc.URL, cc.CABundle = nil, &u, cert.caPEM
		}
	}

	By("applying " + s.manifests.source + " but cert-manager's objects, server-side")
	s.kube.mustRun("apply", "--server-side", "-f", filepath.Join(root, "config", "samples", "namespace.yaml"))
	resources, hooks := s.manifests.forAPIServer(callContainer)
	list, err := json.Marshal(toList(resources))
	Expect(err).NotTo(HaveOccurred())
	s.kube.mustRunWithInput(string(list), "apply", "--server-side", "-f", "-")
	s.kube.mustRun("wait", "--for=condition=Established", "crd", "--all", "--timeout=60s")
	if len(hooks) > 0 {
		By("applying " + s.manifests.source + "'s hooks after the rest, as helm does")
		list, err = json.Marshal(toList(hooks))
		Expect(err).NotTo(HaveOccurred())
		s.kube.mustRunWithInput(string(list), "apply", "--server-side", "-f", "-")
		for _, hook := range hooks {
			if hook.GetKind() == "NodeSLORollout" {
				s.takeStrategyOff(hook.GetName())
			}
		}
	}

	By("issuing a token for ServiceAccount " + spec.ServiceAccountName + " (TokenRequest)")
	token := s.kube.mustRun("create", "token", spec.ServiceAccountName, "-n", s.deployment.Namespace, "--duration=1h")
	saDir := filepath.Join(GinkgoT().TempDir(), "serviceaccount")
	Expect(os.Mkdir(saDir, 0o755)).To(Succeed())
	for file, content := range map[string][]byte{
		"token":     []byte(strings.TrimSpace(token)),
		"ca.crt":    s.cluster.Admin.CAData,
		"namespace": []byte(s.deployment.Namespace),
	} {
		Expect(os.WriteFile(filepath.Join(saDir, file), content, 0o644)).To(Succeed())
		Expect(os.Chmod(filepath.Join(saDir, file), 0o644)).To(Succeed())
	}

	apiServer, err := url.Parse(s.cluster.Admin.Host)
	Expect(err).NotTo(HaveOccurred())
	return podHost{
		apiServerHost:       apiServer.Hostname(),
		apiServerPort:       apiServer.Port(),
		serviceAccountFiles: saDir,
		secrets:             secrets,
	}
}

// takeStrategyOff checks the conservative strategy of the NodeSLORollout
// the chart created, then removes it before the container starts: the
// sample Nodes have no kubelet, so no Ready condition, and the strategy's
// health gate would hold the samples' configuration back from them (and
// its 60 s steps outlast the specs' waits). This suite checks the image
// as the chart runs it, not the rollout (test/cluster and
// internal/controller do).
func (s *shipped) takeStrategyOff(name string) {
	GinkgoHelper()
	By("checking the chart's conservative NodeSLORollout, then taking its strategy off")
	Expect(s.kube.mustRun("get", "nodeslorollout", name, "-n", namespace, "-o",
		"jsonpath={.spec.strategy.maxNodesPerStep} {.spec.strategy.stepIntervalSeconds} "+
			"{.spec.strategy.healthGate.onUnhealthy}")).To(Equal("10% 60 pause"))
	s.kube.mustRun("patch", "nodeslorollout", name, "-n", namespace, "--type=json",
		"-p", `[{"op": "remove", "path": "/spec/strategy"}]`)
}

// start runs a container as the Deployment's pod, on ports that must be free.
func (s *shipped) start(role string) *container {
	GinkgoHelper()
	for _, p := range s.container.Ports {
		l, err := net.Listen("tcp", fmt.Sprintf(":%d", p.ContainerPort))
		Expect(err).NotTo(HaveOccurred(),
			"port %d (%s) of the Deployment is taken on this machine: the container shares the host's network",
			p.ContainerPort, p.Name)
		_ = l.Close()
	}
	By("starting the " + role + " container")
	return startContainer(fmt.Sprintf("nodeslo-image-test-%s-%d", role, GinkgoParallelProcess()), s.flags, s.args)
}

func (s *shipped) probeURL(probe *corev1.Probe) string {
	GinkgoHelper()
	Expect(probe).NotTo(BeNil())
	Expect(probe.HTTPGet).NotTo(BeNil(), "an HTTP probe")
	scheme := strings.ToLower(string(probe.HTTPGet.Scheme))
	if scheme == "" {
		scheme = "http"
	}
	return fmt.Sprintf("%s://127.0.0.1:%d%s", scheme,
		containerPort(s.container, probe.HTTPGet.Port.String()), probe.HTTPGet.Path)
}

func (s *shipped) leaseHolder(lease string) string {
	GinkgoHelper()
	out, err := s.kube.run("get", "lease", lease, "-n", s.deployment.Namespace,
		"-o", "jsonpath={.spec.holderIdentity}")
	Expect(err).NotTo(HaveOccurred())
	return out
}

// metricsReaderRole is the rendering's ClusterRole for metrics scrapers.
func (s *shipped) metricsReaderRole() string {
	GinkgoHelper()
	var names []string
	for _, obj := range s.manifests.objects {
		if obj.GetKind() == "ClusterRole" && strings.HasSuffix(obj.GetName(), "metrics-reader") {
			names = append(names, obj.GetName())
		}
	}
	Expect(names).To(HaveLen(1), "%s: one metrics-reader ClusterRole", s.manifests.source)
	return names[0]
}

// parseManagerArgs reads the Deployment's args with the manager's own flags.
func parseManagerArgs(args []string) manager.Options {
	GinkgoHelper()
	opts := manager.DefaultOptions()
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	opts.BindFlags(fs)
	Expect(fs.Parse(args)).To(Succeed(), "the Deployment's args %q", args)
	return opts
}

func ptrOr(p *string, or string) string {
	if p == nil {
		return or
	}
	return *p
}
