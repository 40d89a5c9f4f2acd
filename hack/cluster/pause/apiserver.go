package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

// The files the kubelet mounts from a pod's projected service-account
// volume.
const serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// checkAPIServer reaches the apiserver the way an in-cluster client does
// (client-go's rest.InClusterConfig): at KUBERNETES_SERVICE_HOST and
// KUBERNETES_SERVICE_PORT (the kubernetes Service's ClusterIP), verifying
// its certificate against the pod's ca.crt, with the pod's token. It prints
// the apiserver's /version and the user a SelfSubjectReview names, one line
// each, for the smoke test to check. Anything else answering the ClusterIP
// (this sandbox's egress proxy when no Service proxy runs) fails the TLS
// verification.
func checkAPIServer() error {
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return errors.New("KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set")
	}
	token, err := os.ReadFile(serviceAccountDir + "/token")
	if err != nil {
		return err
	}
	caPEM, err := os.ReadFile(serviceAccountDir + "/ca.crt")
	if err != nil {
		return err
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		return errors.New("no certificate in ca.crt")
	}
	client := &http.Client{
		Timeout:   10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}},
	}
	base := "https://" + net.JoinHostPort(host, port)

	var version struct {
		GitVersion string `json:"gitVersion"`
		Platform   string `json:"platform"`
	}
	peer, err := call(client, http.MethodGet, base+"/version", token, nil, &version)
	if err != nil {
		return err
	}
	fmt.Printf("apiserver: GET %s/version: gitVersion=%s platform=%s (certificate %q verified with the pod's ca.crt)\n",
		base, version.GitVersion, version.Platform, peer)

	var review struct {
		Status struct {
			UserInfo struct {
				Username string   `json:"username"`
				Groups   []string `json:"groups"`
			} `json:"userInfo"`
		} `json:"status"`
	}
	body := []byte(`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`)
	if _, err := call(client, http.MethodPost, base+"/apis/authentication.k8s.io/v1/selfsubjectreviews", token, body, &review); err != nil {
		return err
	}
	fmt.Printf("apiserver: SelfSubjectReview: username=%s groups=%s\n",
		review.Status.UserInfo.Username, strings.Join(review.Status.UserInfo.Groups, ","))
	return nil
}

// call sends one request with the bearer token, decodes a 2xx answer's JSON
// into out, and returns the subject of the server's certificate.
func call(client *http.Client, method, url string, token, body []byte, out any) (string, error) {
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", err
	}
	if resp.StatusCode/100 != 2 {
		return "", fmt.Errorf("%s %s: %s: %s", method, url, resp.Status, data)
	}
	subject := ""
	if resp.TLS != nil && len(resp.TLS.PeerCertificates) > 0 {
		subject = resp.TLS.PeerCertificates[0].Subject.String()
	}
	return subject, json.Unmarshal(data, out)
}
