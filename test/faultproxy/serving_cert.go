package faultproxy

import (
	"crypto/tls"
	"fmt"
	"net"

	certutil "k8s.io/client-go/util/cert"
)

// newServingCert is the proxy's TLS identity, made anew for each proxy and
// never written to disk: a certificate for 127.0.0.1 and localhost signed
// by a CA made for it alone. It returns the certificate and the PEM that
// clients trust, the certificate with its CA.
func newServingCert() (tls.Certificate, []byte, error) {
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey("localhost", []net.IP{net.IPv4(127, 0, 0, 1)}, nil)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("faultproxy: making the serving certificate: %w", err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("faultproxy: reading back the serving certificate: %w", err)
	}
	return cert, certPEM, nil
}
