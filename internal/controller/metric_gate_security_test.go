package controller_test

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/controller"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// What the ConfigMap may make the metric gate do (docs/rollout.md#metric-gate-credentials),
// against local listeners only: the credentials are entries of the
// manager's --metric-gate-credentials-dir (metricCredentials), each with
// the addresses file that says where it may go, the hosts of checks
// without credentials those of --metric-gate-allowed-hosts
// (metricAllowedHosts).

// promAnswerOf is Prometheus's answer of one number.
const promAnswerOf = `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"%s"]}]}}`

// recorder is a listener that answers as Prometheus does and records, by
// path, the Authorization header of every request ("" when none).
type recorder struct {
	server *httptest.Server
	mu     sync.Mutex
	seen   map[string][]string
}

// startRecorder starts a recorder, over TLS when tls is set; handle, when
// set, answers the paths it knows (returning true).
func startRecorder(tls bool, handle func(w http.ResponseWriter, r *http.Request) bool) *recorder {
	rec := &recorder{seen: map[string][]string{}}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.seen[r.URL.Path] = append(rec.seen[r.URL.Path], r.Header.Get("Authorization"))
		rec.mu.Unlock()
		if handle != nil && handle(w, r) {
			return
		}
		_, _ = fmt.Fprintf(w, promAnswerOf, "0.1")
	})
	if tls {
		rec.server = httptest.NewTLSServer(h)
	} else {
		rec.server = httptest.NewServer(h)
	}
	DeferCleanup(rec.server.Close)
	return rec
}

// authorizations are the Authorization headers path was asked with.
func (r *recorder) authorizations(path string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.seen[path]...)
}

// all are the Authorization headers of every request.
func (r *recorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, s := range r.seen {
		out = append(out, s...)
	}
	return out
}

// addCredentials writes an entry of the manager's credentials directory
// as a Secret volume holds it: files named by its keys.
func addCredentials(name string, files map[string][]byte) {
	dir := filepath.Join(metricCredentials, name)
	Expect(os.MkdirAll(dir, 0o700)).To(Succeed())
	DeferCleanup(os.RemoveAll, dir)
	for file, content := range files {
		Expect(os.WriteFile(filepath.Join(dir, file), content, 0o600)).To(Succeed())
	}
}

// caOf is the PEM of a TLS test server's certificate, its own CA.
func caOf(s *httptest.Server) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
}

// check is one metric check of a strategy, measured every second.
func check(name, address, extra string) string {
	return fmt.Sprintf(`{"name": %q, "address": %q, "max": 0.5, "intervalSeconds": 1, "failureLimit": 100,
		"query": "max(x{node=~\"{{.NodesRegex}}\"})"%s}`, name, address, extra)
}

// invalidStrategyEvents returns the notes of the InvalidStrategy Events
// on the NodeSLORollout.
func invalidStrategyEvents(ctx context.Context) func() ([]string, error) {
	return warningEvents(ctx, configNamespace, rolloutObject(ctx).UID, controller.ReasonInvalidStrategy)
}

// strictStrategy writes policy's strategy into the NodeSLORollout as
// kubectl apply does, unknown fields refused, and returns the apiserver's
// answer.
func strictStrategy(ctx context.Context, policy string) error {
	var strategy map[string]any
	Expect(json.Unmarshal([]byte(policy), &strategy)).To(Succeed())
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(nodeslov1alpha1.GroupVersion.WithKind("NodeSLORollout"))
	Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: configNamespace, Name: configName}, obj)).To(Succeed())
	Expect(unstructured.SetNestedMap(obj.Object, strategy, "spec", "strategy")).To(Succeed())
	return k8sClient.Update(ctx, obj, client.FieldValidation("Strict"))
}

var _ = Describe("A metric gate within what the manager allows", Serial, Label(shardMetrics), func() {
	It("refuses a token file and a credential over plain http at the apiserver, and a host not allowed in the "+
		"controller, each with its field path", func(ctx SpecContext) {
		plain := startRecorder(false, nil)
		addCredentials("refused", map[string][]byte{controller.CredentialToken: []byte("s3cret")})
		setConfig(ctx, rolloutData(50, ""))
		Expect(strictStrategy(ctx, metricGatePolicy(check("file", plain.server.URL, `, "bearerTokenFile": "/token"`)))).
			To(MatchError(ContainSubstring(`unknown field "spec.strategy.healthGate.metrics[0].bearerTokenFile"`)))
		Expect(strictStrategy(ctx, metricGatePolicy(check("clear", plain.server.URL, `, "credentials": "refused"`)))).
			To(MatchError(ContainSubstring(`spec.strategy.healthGate.metrics[0]: Invalid value: address ` +
				`must be https when credentials is set: a credential never travels in clear text`)))

		outside := "http://127.0.0.2:9090"
		setConfig(ctx, rolloutData(40, metricGatePolicy(check("outside", outside, ""))))
		Eventually(invalidStrategyEvents(ctx)).
			Should(ContainElement(ContainSubstring(fmt.Sprintf(`spec.strategy.healthGate.metrics[0].address: `+
				`Invalid value: %q: host 127.0.0.2:9090 is not among the manager's --metric-gate-allowed-hosts `+
				`(127.0.0.1,localhost)`, outside))))
		Expect(plain.all()).To(BeEmpty(), "a refused strategy reached out")
	})

	It("sends a credential over verified https only, follows no redirect, and bounds what it reads",
		func(ctx SpecContext) {
			plain := startRecorder(false, nil)
			secure := startRecorder(true, func(w http.ResponseWriter, r *http.Request) bool {
				switch r.URL.Path {
				case "/redirect/api/v1/query":
					http.Redirect(w, r, plain.server.URL+"/redirected/api/v1/query", http.StatusTemporaryRedirect)
				case "/zero/api/v1/query":
					// An answer that never ends, as /dev/zero reads.
					zeros := make([]byte, 64<<10)
					for r.Context().Err() == nil {
						if _, err := w.Write(zeros); err != nil {
							break
						}
					}
				default:
					return false
				}
				return true
			})
			addCredentials("prom", map[string][]byte{
				controller.CredentialToken: []byte("s3cret\n"), controller.CredentialCA: caOf(secure.server),
				controller.CredentialAddresses: []byte(secure.server.URL + "\n"),
			})
			zero := filepath.Join(metricCredentials, "zero")
			Expect(os.MkdirAll(zero, 0o700)).To(Succeed())
			DeferCleanup(os.RemoveAll, zero)
			Expect(os.Symlink("/dev/zero", filepath.Join(zero, controller.CredentialToken))).To(Succeed())
			Expect(os.WriteFile(filepath.Join(zero, controller.CredentialAddresses),
				[]byte(secure.server.URL+"\n"), 0o600)).To(Succeed())
			_, _ = startMetricRollout(ctx, metricGatePolicy(strings.Join([]string{
				check("tls-token", secure.server.URL+"/ok", `, "credentials": "prom"`),
				check("plain-none", plain.server.URL+"/plain", ""),
				check("redirect", secure.server.URL+"/redirect", `, "credentials": "prom"`),
				check("zero-token", secure.server.URL+"/zero-token", `, "credentials": "zero"`),
				check("zero-answer", secure.server.URL+"/zero", `, "credentials": "prom"`),
			}, ", ")), nil)

			Eventually(measurements("tls-token", controller.MeasurementPass)).Should(BeNumerically(">=", 1))
			Eventually(measurements("plain-none", controller.MeasurementPass)).Should(BeNumerically(">=", 1))
			Expect(secure.authorizations("/ok/api/v1/query")).To(ContainElement("Bearer s3cret"),
				"the token, read from the credentials, went to the verified server")
			Eventually(func() map[string]string {
				seen := map[string]string{}
				health := record(ctx).Health
				if health == nil { // no judgement recorded yet
					return seen
				}
				for name, r := range health.Metrics {
					seen[name] = r.Seen
				}
				return seen
			}).Should(And(
				HaveKeyWithValue("redirect", ContainSubstring("answered a redirect (HTTP 307), which is not followed")),
				HaveKeyWithValue("zero-token", ContainSubstring("credentials zero: token: larger than the limit of 16 KiB")),
				HaveKeyWithValue("zero-answer", ContainSubstring("reading the answer: larger than the limit of 4 MiB"))))
			Expect(record(ctx).Health.Halted()).To(BeFalse(), "within the failure limit")
			Expect(secure.authorizations("/zero-token/api/v1/query")).To(BeEmpty(), "a token too large was not sent")
			Expect(plain.authorizations("/redirected/api/v1/query")).To(BeEmpty(), "the redirect was followed")
			Expect(plain.authorizations("/plain/api/v1/query")).NotTo(BeEmpty())
			Expect(plain.all()).To(HaveEach(""), "a credential travelled over plain http")
		})

	It("sends a credential only to the addresses its entry lists, and lets a check without credentials reach "+
		"only allowed hosts", func(ctx SpecContext) {
		// Two https servers of one certificate: the CA that verifies the
		// first verifies the second too, so only the addresses file tells
		// them apart.
		first, second := startRecorder(true, nil), startRecorder(true, nil)
		addCredentials("pinned", map[string][]byte{
			controller.CredentialToken: []byte("pinned-token"), controller.CredentialCA: caOf(first.server),
			controller.CredentialAddresses: []byte("# the first server only\n" + first.server.URL + "\n"),
		})
		addresses := filepath.Join(metricCredentials, "pinned", controller.CredentialAddresses)
		setConfig(ctx, rolloutData(40, metricGatePolicy(
			check("aimed", second.server.URL, `, "credentials": "pinned"`))))
		Eventually(invalidStrategyEvents(ctx)).
			Should(ContainElement(ContainSubstring(fmt.Sprintf(`spec.strategy.healthGate.metrics[0].address: `+
				`Invalid value: %q: check aimed may not send credentials pinned there: it is not among the addresses of %s (%s); `+
				`add it there (the key addresses of the entry's Secret) or name other credentials`,
				second.server.URL, addresses, first.server.URL))))
		Eventually(func() bool { return rolloutObject(ctx).Status.StrategyInvalid }).Should(BeTrue())

		By("the same credential at the address listed: measured, the token sent there")
		_, _ = startMetricRollout(ctx, metricGatePolicy(
			check("pinned", first.server.URL, `, "credentials": "pinned"`)), nil)
		Eventually(measurements("pinned", controller.MeasurementPass)).Should(BeNumerically(">=", 1))
		Expect(first.all()).To(ContainElement("Bearer pinned-token"))
		Expect(second.all()).To(BeEmpty(), "the server the credential was not mounted for was asked")

		By("a check without credentials, the manager without --metric-gate-allowed-hosts")
		stopManager()
		metricGateAllowedHosts = ""
		stopManager = startManager()
		DeferCleanup(func() {
			stopManager()
			metricGateAllowedHosts = metricAllowedHosts
			stopManager = startManager()
		})
		openAddress := first.server.URL + "/open"
		setConfig(ctx, rolloutData(30, metricGatePolicy(check("open", openAddress, ""))))
		Eventually(invalidStrategyEvents(ctx)).
			Should(ContainElement(ContainSubstring(fmt.Sprintf(`spec.strategy.healthGate.metrics[0].address: `+
				`Invalid value: %q: check open names no credentials, and the manager runs without --metric-gate-allowed-hosts, `+
				`so it may reach no address: list the Prometheus hosts there (Helm: metricGate.allowedHosts)`,
				openAddress))))
		Eventually(func() bool { return rolloutObject(ctx).Status.StrategyInvalid }).Should(BeTrue())
		Expect(first.authorizations("/open/api/v1/query")).To(BeEmpty(), "the refused check was measured")
		Expect(second.all()).To(BeEmpty())
	})

	It("changes the configuration while a query hangs, and holds the rollout as inconclusive once the query's "+
		"deadline passes", func(ctx SpecContext) {
		// A listener that accepts and never answers.
		stalled, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(stalled.Close)
		accepted := make(chan net.Conn, 16)
		go func() {
			for {
				c, err := stalled.Accept()
				if err != nil {
					return
				}
				accepted <- c
			}
		}()
		DeferCleanup(func() {
			for {
				select {
				case c := <-accepted:
					_ = c.Close()
				default:
					return
				}
			}
		})
		// A query's deadline is its interval (10 s, within 5 to 30 s).
		const name = "stalled"
		policy := metricGatePolicy(fmt.Sprintf(`{"name": %q, "address": "http://%s", "max": 1, "intervalSeconds": 10,
			"query": "max(x{node=~\"{{.NodesRegex}}\"})"}`, name, stalled.Addr()))
		cm, f := startMetricRollout(ctx, policy, nil)
		var hanging net.Conn
		Eventually(accepted).Should(Receive(&hanging), "the gate queried the stalled listener")
		accepted <- hanging // closed at cleanup

		// While the query hangs, a configuration change reaches the canaries
		// as fast as any other; the rollout the query measured is over.
		changedAt := time.Now()
		setConfig(ctx, rolloutData(30, policy))
		Eventually(func() int { return len(f.at(ctx, 30)) }).WithTimeout(5*time.Second).
			Should(Equal(metricCanaries), "the change waited for the hanging query")
		Expect(time.Since(changedAt)).To(BeNumerically("<", 5*time.Second))

		// The new rollout's query hangs too: its deadline ends it without an
		// answer, and beyond the failure limit (0) the check is inconclusive:
		// the rollout waits, not halted.
		Eventually(func() bool { return metricInconclusive(record(ctx).Health) }).WithTimeout(time.Minute).
			Should(BeTrue())
		Expect(record(ctx).Health.Halted()).To(BeFalse())
		Expect(record(ctx).Health.Metrics).To(HaveKeyWithValue(name, And(
			HaveField("Inconclusive", BeTrue()), HaveField("Failed", BeFalse()), HaveField("Errors", 1),
			HaveField("Seen", ContainSubstring("Prometheus unreachable at http://"+stalled.Addr().String()+
				": context deadline exceeded")))))
		Eventually(configEvents(ctx, cm, corev1.EventTypeWarning, rollout.ReasonInconclusive)).Should(ContainElement(
			ContainSubstring("metric check stalled inconclusive: Prometheus unreachable")))
		canaries, others := f.split(f.at(ctx, 30))
		Expect(others).To(BeZero(), "a node beyond the canaries was reached")
		Expect(canaries).To(Equal(metricCanaries))
	})
})
