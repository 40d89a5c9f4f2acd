package nodecluster

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// authority is a CA. The cluster's CA signs every serving and client
// certificate: the apiserver trusts it for clients (--client-ca-file), the
// kubelet for the apiserver. The front proxy's CA signs only the client
// certificate with which the apiserver forwards requests to extension
// apiservers (and which they trust, through the requestheader settings).
type authority struct {
	dir  string
	name string
	cert *x509.Certificate
	key  crypto.Signer
}

// certRequest is one certificate to issue: a client identity (CN is the
// user, Organizations its groups) or a server's names.
type certRequest struct {
	name          string // files <name>.crt and <name>.key
	commonName    string
	organizations []string
	dnsNames      []string
	ips           []net.IP
	server        bool
}

const certValidity = 7 * 24 * time.Hour

// newAuthority makes a CA whose files are <name>.crt and <name>.key in dir.
func newAuthority(dir, name string) (*authority, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	template := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "nodeslo-cluster-" + name},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(certValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, key.Public(), key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	a := &authority{dir: dir, name: name, cert: cert, key: key}
	if err := writeCert(a.CertFile(), der); err != nil {
		return nil, err
	}
	return a, writeKey(a.KeyFile(), key)
}

// CertFile is the CA certificate (PEM).
func (a *authority) CertFile() string { return filepath.Join(a.dir, a.name+".crt") }

// KeyFile is the CA key (kube-controller-manager's CSR signer uses it).
func (a *authority) KeyFile() string { return filepath.Join(a.dir, a.name+".key") }

// CertPEM is the CA certificate, for kubeconfigs.
func (a *authority) CertPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: a.cert.Raw})
}

// issue writes <name>.crt and <name>.key and returns their paths.
func (a *authority) issue(r certRequest) (certFile, keyFile string, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", err
	}
	now := time.Now()
	template := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: r.commonName, Organization: r.organizations},
		DNSNames:     r.dnsNames,
		IPAddresses:  r.ips,
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(certValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if r.server {
		template.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	}
	der, err := x509.CreateCertificate(rand.Reader, template, a.cert, key.Public(), a.key)
	if err != nil {
		return "", "", fmt.Errorf("issuing %s: %w", r.name, err)
	}
	certFile = filepath.Join(a.dir, r.name+".crt")
	keyFile = filepath.Join(a.dir, r.name+".key")
	if err := writeCert(certFile, der); err != nil {
		return "", "", err
	}
	return certFile, keyFile, writeKey(keyFile, key)
}

// serviceAccountKeys writes the key pair that signs service-account tokens
// (sa.key, for kube-apiserver and kube-controller-manager) and verifies them
// (sa.pub).
func serviceAccountKeys(dir string) (keyFile, pubFile string, err error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", "", err
	}
	pub, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return "", "", err
	}
	keyFile, pubFile = filepath.Join(dir, "sa.key"), filepath.Join(dir, "sa.pub")
	if err := writeKey(keyFile, key); err != nil {
		return "", "", err
	}
	return keyFile, pubFile, os.WriteFile(pubFile, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), 0o644)
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		panic(err)
	}
	return n
}

func writeCert(file string, der []byte) error {
	return os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
}

func writeKey(file string, key crypto.Signer) error {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	return os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600)
}
