package manager

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"
	certutil "k8s.io/client-go/util/cert"

	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
)

// metricsHost is the name the test certificates are issued for, as
// cert-manager issues the chart's for the metrics Service's DNS name.
const metricsHost = "nodeslo-controller-controller-manager-metrics-service.koordinator-system.svc"

// writeCert writes a fresh self-signed certificate for metricsHost, and its
// key, as dir/certName and dir/keyName, and returns the certificate (PEM).
func writeCert(t interface{ Fatal(...any) }, dir, certName, keyName string) []byte {
	cert, key, err := certutil.GenerateSelfSignedCertKey(metricsHost, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{certName: cert, keyName: key} {
		// Written aside and renamed, as the kubelet swaps a Secret's files,
		// so that the watcher never reads half a file.
		tmp := filepath.Join(dir, "."+name+".tmp")
		if err := os.WriteFile(tmp, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return cert
}

// The manager refuses a metrics certificate it cannot use, before it
// reaches the apiserver: without this, controller-runtime would serve a
// self-signed certificate instead and only the scrapers would notice.
func TestMetricsCertificateItCannotServeStopsTheManager(t *testing.T) {
	// No apiserver listens here: New must fail before it needs one.
	cfg := &rest.Config{Host: "https://127.0.0.1:1"}
	dir := t.TempDir()
	for _, c := range []struct {
		name   string
		modify func(*Options)
		want   string
	}{
		{"no files in the directory", func(*Options) {}, "--metrics-cert-path"},
		{"plain HTTP", func(o *Options) {
			writeCert(t, dir, "tls.crt", "tls.key")
			o.SecureMetrics = false
		}, errMetricsCertWithoutTLS.Error()},
		{"a key name that is not there", func(o *Options) { o.MetricsCert.Key = "key.pem" }, "key.pem"},
	} {
		opts := DefaultOptions()
		opts.MetricsBindAddress = "127.0.0.1:0"
		opts.MetricsCert.Path = dir
		c.modify(&opts)
		_, err := New(cfg, opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: New returned %v, want an error naming %q", c.name, err, c.want)
		}
	}
	// Metrics off: the certificate is not read, as the server does not run.
	opts := DefaultOptions()
	opts.MetricsCert.Path = filepath.Join(dir, "absent")
	if _, err := opts.MetricsCert.watcher(true); err == nil {
		t.Fatal("an absent directory was accepted")
	}
	if _, err := New(cfg, opts); err != nil && strings.Contains(err.Error(), "metrics") {
		t.Errorf("with metrics off the certificate was still read: %v", err)
	}
}

var _ = Describe("The metrics server", func() {
	It("serves the certificate of --metrics-cert-path, and the renewed one once its files change", func() {
		cfg := envtestharness.Start(envtestharness.Options{}).Admin
		dir := GinkgoT().TempDir()
		// Names other than tls.crt and tls.key, so that the flags' values,
		// not controller-runtime's defaults, are what is read.
		first := writeCert(GinkgoT(), dir, "metrics.crt", "metrics.key")

		opts := DefaultOptions()
		opts.MetricsBindAddress = envtestharness.FreeAddress("127.0.0.1")
		opts.HealthProbeBindAddress = envtestharness.FreeAddress("127.0.0.1")
		opts.MetricsCert = MetricsCertOptions{Path: dir, Name: "metrics.crt", Key: "metrics.key"}
		// The other specs of the suite build managers in this process too.
		opts.SkipControllerNameValidation = true
		mgr, err := New(cfg, opts)
		Expect(err).NotTo(HaveOccurred())
		runUntilCleanup(mgr)

		// A client that trusts only the given certificate and checks the
		// name, as Prometheus does with the ServiceMonitor's CA and
		// serverName.
		get := func(trusted []byte) (int, error) {
			pool := x509.NewCertPool()
			Expect(pool.AppendCertsFromPEM(trusted)).To(BeTrue())
			client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{
				RootCAs: pool, ServerName: metricsHost, MinVersion: tls.VersionTLS12,
			}}}
			defer client.CloseIdleConnections()
			resp, err := client.Get(fmt.Sprintf("https://%s/metrics", opts.MetricsBindAddress))
			if err != nil {
				return 0, err
			}
			_ = resp.Body.Close()
			return resp.StatusCode, nil
		}
		// No token: the server verified, the request refused by the
		// authentication filter, which proves the answer came from it.
		Eventually(func() (int, error) { return get(first) }).Should(Equal(http.StatusUnauthorized))

		second := writeCert(GinkgoT(), dir, "metrics.crt", "metrics.key")
		Eventually(func() (int, error) { return get(second) }).Should(Equal(http.StatusUnauthorized),
			"the renewed certificate is served")
		_, err = get(first)
		var unknown x509.UnknownAuthorityError
		Expect(errors.As(err, &unknown)).To(BeTrue(), "the first certificate is no longer served: %v", err)
	})
})
