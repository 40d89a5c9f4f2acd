// Package faultproxy is a fault-injecting HTTPS proxy in front of a real
// kube-apiserver (envtest's), for the test suites: the faults are answers
// on the wire to real requests of a real client, not a mocked client.
//
// Start listens on 127.0.0.1 with a serving certificate of a CA made for
// the proxy alone (Proxy.CAData), and forwards each request to the
// apiserver, streaming watches chunk by chunk and setting no timeout of its
// own on a request. Rules (Proxy.Add, ActiveRule.Remove, at any time) match
// requests by the apiserver's own reading of them (verb, resource,
// subresource, namespace, name: k8s.io/apiserver's RequestInfoFactory) and
// by the client's identity, and fault them: 429 with Retry-After, 503, 409
// Conflict (each a metav1.Status body, which client-go reads as the
// apiserver's), a connection reset after forwarding, an answer delayed, a
// watch stalled (then resumed, cut or ended cleanly); for every match,
// with a probability, every Nth, within a time window, up to a limit. Each
// rule counts the requests it matched and faulted. DropConnections resets
// every client connection, so that watches opened before a rule meet it.
//
// # Identity: each client's bearer token goes through untouched
//
// A TLS-terminating proxy cannot pass a client certificate on, and
// envtest's users (AddUser, the suites' admin) authenticate with one. Of
// the two ways around that, the proxy takes the second:
//
//   - The proxy authenticates as itself and impersonates the caller
//     (Impersonate-User, taken from the client certificate it verified).
//     Then the proxy holds a right to impersonate anyone, the audit log
//     names the proxy as the user and the caller as impersonated, and the
//     caller's identity is whatever the proxy concluded.
//   - Each client authenticates with a bearer token (a ServiceAccount's,
//     from a TokenRequest: ServiceAccountToken), which the proxy forwards
//     as it came, holding no credential of its own on the forwarded
//     request. The apiserver authenticates and authorizes every request
//     itself, as the ServiceAccount: RBAC is real, the audit log's user is
//     the client, and a manager run with a token through the proxy is
//     authenticated exactly as the deployed one is (its pod's token).
//
// So one manager is one ServiceAccount (or one token of it), and its
// writes are counted per user by the apiserver's audit log (AuditLog).
// A client that impersonates (Impersonate-User over a token) is passed on
// too, and the apiserver checks the token's right to impersonate. The
// upstream config's own credentials serve only to ask the apiserver, with
// a TokenReview, whose a token is, when a rule names a User.
//
// # Counting writes
//
// NewAuditLog writes an audit policy that records the writes to the given
// resources (ProjectResources: NodeSLOs and NodeSLORollouts) at the
// Metadata level; its APIServerFlags turn it on in envtest's apiserver,
// and SuccessfulWrites counts one user's writes that the apiserver carried
// out: independent of the client's own account and of the proxy, so a
// write whose answer the proxy reset is counted and one it refused is not.
package faultproxy
