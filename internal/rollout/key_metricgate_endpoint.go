package rollout

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"

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
	e := endpointOf(u)
	withPort := net.JoinHostPort(e.host, e.port)
	if slices.Contains(l.AllowedHosts, e.host) || slices.Contains(l.AllowedHosts, withPort) {
		return nil
	}
	return fmt.Errorf("host %s is not among the manager's --metric-gate-allowed-hosts (%s)",
		withPort, sloconfig.Shorten(strings.Join(l.AllowedHosts, ","), 200))
}

// checkEndpoint checks how the check reaches Prometheus, where the CRD's
// schema already refused a credential over http or to an unverified
// server: with limits (nil: not known), its address must be one its
// credentials may be sent to, or, without credentials, one of the
// allowed hosts. A credential is never sent unverified, so that rule is
// checked here again, whatever the installed CRD says.
func (c *MetricCheck) checkEndpoint(path *field.Path, limits *Limits) field.ErrorList {
	if c.Credentials != "" && c.InsecureSkipVerify {
		return field.ErrorList{field.Invalid(path.Child("insecureSkipVerify"), true,
			"must not be set with credentials: a credential is sent only to a server whose certificate is verified "+
				"(put its CA, as ca.crt, in the credentials' entry)")}
	}
	if limits == nil {
		return nil
	}
	switch child, err := limits.reach(c.Name, c.Address, c.Credentials); {
	case err != nil && child == fieldCredentials:
		return field.ErrorList{field.Invalid(path.Child(child), c.Credentials, err.Error())}
	case err != nil:
		return field.ErrorList{field.Invalid(path.Child(child), sloconfig.Echo(c.Address), err.Error())}
	}
	return nil
}
