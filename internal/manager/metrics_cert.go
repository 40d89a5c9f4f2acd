package manager

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"path/filepath"

	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
)

// MetricsCertOptions name the metrics server's certificate: the files
// tls.crt and tls.key of a directory by default, as cert-manager writes a
// Certificate's Secret. The flags are Kubebuilder's scaffold's.
type MetricsCertOptions struct {
	// Path is the directory; empty: the server's own self-signed
	// certificate.
	Path string
	// Name and Key are the certificate's and the key's file names in Path.
	Name string
	Key  string
}

// defaultMetricsCertOptions returns the settings used when no flag is given.
func defaultMetricsCertOptions() MetricsCertOptions {
	return MetricsCertOptions{Name: "tls.crt", Key: "tls.key"}
}

// bindFlags registers one flag per metrics certificate option on fs.
func (o *MetricsCertOptions) bindFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.Path, "metrics-cert-path", o.Path,
		"Directory holding the metrics server's certificate and key (empty: a self-signed certificate "+
			"made at start). Needs --metrics-secure.")
	fs.StringVar(&o.Name, "metrics-cert-name", o.Name,
		"File name of the metrics server's certificate in --metrics-cert-path.")
	fs.StringVar(&o.Key, "metrics-cert-key", o.Key, "File name of the metrics server's key in --metrics-cert-path.")
}

// errMetricsCertWithoutTLS is returned for a certificate given to a
// metrics server that serves plain HTTP: the operator meant TLS, and
// serving without it would hide the mistake.
var errMetricsCertWithoutTLS = errors.New("--metrics-cert-path is set but --metrics-secure is false")

// watcher loads the certificate and returns the watcher that serves it and
// reloads it when the files change (cert-manager renews the Secret and the
// kubelet updates the mount in place), nil when no path is given. It fails
// when the files cannot be read: controller-runtime's metrics server would
// fall back to a self-signed certificate without a word, and scrapers that
// verify it would fail with nothing in the manager's log to say why.
func (o *MetricsCertOptions) watcher(secure bool) (*certwatcher.CertWatcher, error) {
	if o.Path == "" {
		return nil, nil
	}
	if !secure {
		return nil, errMetricsCertWithoutTLS
	}
	w, err := certwatcher.New(filepath.Join(o.Path, o.Name), filepath.Join(o.Path, o.Key))
	if err != nil {
		return nil, fmt.Errorf("the metrics server's certificate (--metrics-cert-path): %w", err)
	}
	return w, nil
}

// tlsOption has the metrics server serve the watcher's certificate.
func tlsOption(w *certwatcher.CertWatcher) func(*tls.Config) {
	return func(c *tls.Config) { c.GetCertificate = w.GetCertificate }
}
