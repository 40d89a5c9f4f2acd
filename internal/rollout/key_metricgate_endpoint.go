package rollout

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// How a metric check reaches Prometheus (docs/rollout.md#metric-gate-credentials).
// Whoever writes the strategy chooses the address and names a credential;
// only the operator, through the manager's flags and the files it mounts,
// decides which credentials exist (entries of --metric-gate-credentials-dir),
// where each may be sent (its addresses file, key_metricgate_reach.go) and
// which hosts a check without credentials may reach
// (--metric-gate-allowed-hosts). So a strategy never names a file, and a
// credential never travels in clear text, to an unverified server, or to
// a server it was not mounted for.

// maxMetricAddressLength bounds an address, and so every message that
// repeats it.
const maxMetricAddressLength = 1024

// ParseAllowedHosts reads --metric-gate-allowed-hosts: a comma-separated
// list of host names or IP addresses, each with a port or not (an IPv6
// address in brackets when it has one). Entries are lower-cased.
func ParseAllowedHosts(list string) ([]string, error) {
	var out []string
	for e := range strings.SplitSeq(list, ",") {
		e = strings.ToLower(strings.TrimSpace(e))
		if e == "" {
			continue
		}
		u, err := url.Parse("//" + e)
		if err != nil || u.Host != e || u.Hostname() == "" || u.User != nil {
			return nil, fmt.Errorf("allowed host %q: must be a host name or IP address, with :port or not", e)
		}
		if p := u.Port(); p != "" {
			if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
				return nil, fmt.Errorf("allowed host %q: the port must be 1 to 65535", e)
			}
		}
		out = append(out, strings.TrimSuffix(e, "."))
	}
	return out, nil
}

// checkHost says why the check named check, which names no credentials,
// may not reach u; nil when u's host is among l's allowed hosts.
func (l Limits) checkHost(check string, u *url.URL) error {
	if len(l.AllowedHosts) == 0 {
		return fmt.Errorf("check %s names no credentials, and the manager runs without --metric-gate-allowed-hosts, "+
			"so it may reach no address: list the Prometheus hosts there (Helm: metricGate.allowedHosts), "+
			"or name credentials whose %s file lists this address", check, CredentialAddressesFile)
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	port := u.Port()
	if port == "" {
		port = defaultPorts[u.Scheme]
	}
	withPort := net.JoinHostPort(host, port)
	if slices.Contains(l.AllowedHosts, host) || slices.Contains(l.AllowedHosts, withPort) {
		return nil
	}
	return fmt.Errorf("host %s is not among the manager's --metric-gate-allowed-hosts (%s)",
		withPort, sloconfig.Shorten(strings.Join(l.AllowedHosts, ","), 200))
}

// compileEndpoint checks how the check reaches Prometheus: an http or https
// address with a host; credentials by name, only over https with the
// server verified; no verification only when asked for, over https and
// without credentials. limits (nil: not known) are the manager's: once
// the check is otherwise valid, its address must be one its credentials
// may be sent to, or, without credentials, one of the allowed hosts.
func (c *MetricCheck) compileEndpoint(
	doc *metricCheckDocument, path *field.Path, limits *Limits,
) field.ErrorList {
	var errs field.ErrorList
	addr := path.Child(fieldAddress)
	if doc.Address == nil || *doc.Address == "" {
		errs = append(errs, field.Required(addr, "the Prometheus server's URL, such as http://prometheus.monitoring:9090"))
	} else {
		c.Address = *doc.Address
		errs = append(errs, validateAddress(c.Address, addr)...)
	}
	const named = "a ConfigMap names no file: put the %s, as the file %q, in an entry of the manager's " +
		"--metric-gate-credentials-dir and name the entry with credentials (docs/rollout.md#metric-gate-credentials)"
	if doc.BearerTokenFile != nil {
		errs = append(errs, field.Forbidden(path.Child("bearerTokenFile"), fmt.Sprintf(named, "token", "token")))
	}
	if doc.CAFile != nil {
		errs = append(errs, field.Forbidden(path.Child("caFile"), fmt.Sprintf(named, "CA bundle", "ca.crt")))
	}
	if v := doc.Credentials; v != nil {
		c.Credentials = *v
		errs = append(errs, validateCredentialsName(c.Credentials, path.Child(fieldCredentials))...)
	}
	if v := doc.InsecureSkipVerify; v != nil {
		c.InsecureSkipVerify = *v
	}
	plain := strings.HasPrefix(strings.ToLower(c.Address), "http:")
	switch {
	case c.Credentials != "" && plain:
		errs = append(errs, field.Invalid(addr, sloconfig.Echo(c.Address),
			"must be https when credentials is set: a credential never travels in clear text"))
	case c.Credentials != "" && c.InsecureSkipVerify:
		errs = append(errs, field.Invalid(path.Child("insecureSkipVerify"), true,
			"must not be set with credentials: a credential is sent only to a server whose certificate is verified "+
				"(put its CA, as ca.crt, in the credentials' entry)"))
	case c.InsecureSkipVerify && plain:
		errs = append(errs, field.Invalid(addr, sloconfig.Echo(c.Address), "must be https when insecureSkipVerify is set"))
	}
	if limits != nil && len(errs) == 0 {
		switch child, err := limits.reach(c.Name, c.Address, c.Credentials); {
		case err != nil && child == fieldCredentials:
			errs = append(errs, field.Invalid(path.Child(child), c.Credentials, err.Error()))
		case err != nil:
			errs = append(errs, field.Invalid(path.Child(child), sloconfig.Echo(c.Address), err.Error()))
		}
	}
	return errs
}

// validateAddress checks an address: an http or https URL with a host,
// no user, query or fragment.
func validateAddress(v string, path *field.Path) field.ErrorList {
	if len(v) > maxMetricAddressLength {
		return field.ErrorList{field.TooLong(path, "", maxMetricAddressLength)}
	}
	u, err := url.Parse(v)
	switch {
	case err != nil || u.Host == "" || (u.Scheme != schemeHTTP && u.Scheme != schemeHTTPS):
		return field.ErrorList{field.Invalid(path, sloconfig.Echo(v), "must be an http or https URL with a host")}
	case u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return field.ErrorList{field.Invalid(path, sloconfig.Echo(v),
			"must have no query, fragment or user: use credentials for credentials")}
	}
	return nil
}

// validateCredentialsName checks the name of an entry of the manager's
// credentials directory: a DNS label, so that it names an entry and never
// a path (no slash, no dot).
func validateCredentialsName(v string, path *field.Path) field.ErrorList {
	msgs := validation.IsDNS1123Label(v)
	errs := make(field.ErrorList, 0, len(msgs))
	for _, msg := range msgs {
		errs = append(errs, field.Invalid(path, sloconfig.Echo(v),
			msg+": the name of an entry of the manager's --metric-gate-credentials-dir, never a path"))
	}
	return errs
}
