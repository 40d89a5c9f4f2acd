package rollout

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Where a metric check's requests may go (docs/rollout.md#metric-gate-credentials).
// Whoever writes the strategy chooses a check's address; the operator
// decides every address the controller may be made to reach: for a check
// naming credentials, the addresses file of that credential's entry, so
// that a credential goes only where the operator mounted it for; for any
// other check, the hosts of --metric-gate-allowed-hosts. The controller
// reads the files and hands them here as data (CredentialEntry).

// The URL schemes of an address, with their default ports.
const (
	schemeHTTP  = "http"
	schemeHTTPS = "https"
)

var defaultPorts = map[string]string{schemeHTTP: "80", schemeHTTPS: "443"}

// The fields of a check a reach error is about.
const (
	fieldAddress     = "address"
	fieldCredentials = "credentials"
)

// CredentialAddressesFile is the file of an entry of the credentials
// directory (a key of its Secret) that lists where the entry's credential
// may be sent.
const CredentialAddressesFile = "addresses"

// CredentialEntry is what the manager knows of one entry of its
// credentials directory, read by the controller.
type CredentialEntry struct {
	// Addresses are where the credential may be sent, as its addresses
	// file lists them.
	Addresses []CredentialAddress
	// Problem, when not "", says why the entry cannot be used by any
	// check: its addresses file is missing, unreadable or not a list of
	// https addresses.
	Problem string
}

// CredentialAddress is one line of an addresses file: an https address
// whose host and port a check's address must repeat exactly, and whose
// path is a prefix of whole segments of the check's path.
type CredentialAddress struct {
	host, port, path string
}

// String is the address as a check would write it.
func (a CredentialAddress) String() string {
	return "https://" + joinHostPort(a.host, a.port) + a.path
}

// joinHostPort writes host:port, an IPv6 host in brackets, without the
// port when it is https's own.
func joinHostPort(host, port string) string {
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port == "443" {
		return host
	}
	return host + ":" + port
}

// ParseCredentialAddresses reads an addresses file: one https address a
// line (scheme, host, an optional port and an optional path prefix),
// blank lines and lines starting with # ignored. A line that is not such
// an address is an error naming it; so is a file that lists none.
func ParseCredentialAddresses(text string) ([]CredentialAddress, error) {
	var out []CredentialAddress
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		a, err := parseCredentialAddress(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %q: %w", i+1, sloconfig.Shorten(line, 100), err)
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil, errors.New("lists no address")
	}
	return out, nil
}

// parseCredentialAddress reads one line of an addresses file.
func parseCredentialAddress(line string) (CredentialAddress, error) {
	u, err := url.Parse(line)
	switch {
	case err != nil || u.Host == "" || u.Hostname() == "":
		return CredentialAddress{}, errors.New("must be an https URL with a host, such as https://prometheus.monitoring:9091")
	case u.Scheme != schemeHTTPS:
		return CredentialAddress{}, errors.New("must be https: a credential never travels in clear text")
	case u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return CredentialAddress{}, errors.New("must have no user, query or fragment")
	case dotSegment(u.Path):
		return CredentialAddress{}, errors.New(`its path must hold no "." or ".." segment`)
	}
	e := endpointOf(u)
	if n, err := strconv.Atoi(e.port); err != nil || n < 1 || n > 65535 {
		return CredentialAddress{}, errors.New("the port must be 1 to 65535")
	}
	return CredentialAddress(e), nil
}

// endpoint is an address as it is compared: host lower-cased without a
// trailing dot, the port with https's 443 filled in, the path as sent
// (percent-encoding kept) without a trailing slash.
type endpoint struct {
	host, port, path string
}

func endpointOf(u *url.URL) endpoint {
	port := u.Port()
	if port == "" {
		port = defaultPorts[u.Scheme]
	}
	return endpoint{
		host: strings.TrimSuffix(strings.ToLower(u.Hostname()), "."),
		port: port,
		path: strings.TrimSuffix(u.EscapedPath(), "/"),
	}
}

// dotSegment reports whether a path holds a "." or ".." segment, which a
// server may resolve to outside a path prefix.
func dotSegment(p string) bool {
	return slices.ContainsFunc(strings.Split(p, "/"), func(s string) bool { return s == "." || s == ".." })
}

// covers reports whether a check's https address e may receive the
// credential a is a line of: the same host and port, and a's path a
// prefix of whole segments of e's.
func (a CredentialAddress) covers(e endpoint) bool {
	return a.host == e.host && a.port == e.port &&
		(e.path == a.path || strings.HasPrefix(e.path, a.path+"/"))
}

// CheckReach says why the metric check named check may not send its
// requests to address with credentials (""; none); nil when it may. The
// address is already validated as an http or https URL, https when it
// names credentials. The controller calls it again before each query.
func (l Limits) CheckReach(check, address, credentials string) error {
	_, err := l.reach(check, address, credentials)
	return err
}

// reach is CheckReach, with the field of the check that the error is
// about: fieldCredentials or fieldAddress.
func (l Limits) reach(check, address, credentials string) (string, error) {
	u, err := url.Parse(address)
	if err != nil {
		return fieldAddress, fmt.Errorf("cannot read the address: %w", err)
	}
	if credentials == "" {
		return fieldAddress, l.checkHost(check, u)
	}
	if l.CredentialsDir == "" {
		return fieldCredentials, errors.New("the manager runs without --metric-gate-credentials-dir, " +
			"so it holds no credentials to name")
	}
	entry, ok := l.Credentials[credentials]
	file := path.Join(l.CredentialsDir, credentials, CredentialAddressesFile)
	switch {
	case !ok:
		return fieldCredentials, fmt.Errorf("check %s names credentials %s, which the manager's "+
			"--metric-gate-credentials-dir (%s) has no entry for: mount a Secret there as %s, with token, ca.crt "+
			"or both, and %s listing where it may be sent", check, credentials, l.CredentialsDir,
			path.Join(l.CredentialsDir, credentials), CredentialAddressesFile)
	case entry.Problem != "":
		return fieldCredentials, fmt.Errorf("credentials %s cannot be used by any check (check %s names them): %s: %s; "+
			"it lists the https addresses the credential may be sent to, one a line (the key %s of its Secret)",
			credentials, check, file, entry.Problem, CredentialAddressesFile)
	case u.Scheme != schemeHTTPS:
		return fieldAddress, errors.New("must be https when credentials is set: a credential never travels in clear text")
	case dotSegment(u.Path):
		return fieldAddress, fmt.Errorf(`check %s may not send credentials %s there: its path holds a "." or ".." segment`,
			check, credentials)
	}
	e := endpointOf(u)
	if slices.ContainsFunc(entry.Addresses, func(a CredentialAddress) bool { return a.covers(e) }) {
		return "", nil
	}
	listed := make([]string, len(entry.Addresses))
	for i, a := range entry.Addresses {
		listed[i] = a.String()
	}
	return fieldAddress, fmt.Errorf("check %s may not send credentials %s there: "+
		"it is not among the addresses of %s (%s); "+
		"add it there (the key %s of the entry's Secret) or name other credentials",
		check, credentials, file, sloconfig.Shorten(strings.Join(listed, ", "), 200), CredentialAddressesFile)
}
