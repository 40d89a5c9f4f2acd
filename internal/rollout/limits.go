package rollout

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// maxPodNamespaces bounds --health-gate-pod-namespaces: each namespace is
// one watch while a gate judges a rollout.
const maxPodNamespaces = 32

// Limits are what the manager's administrator allows a strategy,
// from the manager's flags and its credentials directory as the
// controller read them: where a metric check may send its queries and
// credentials, and whose Pods the health gate may count. Whoever writes
// the strategy chooses within them, never beyond. The controller and the
// webhook check the strategy against them (LoadStrategy); kubectl
// nodeslo, which cannot know them, does not, and the controller checks a
// metric check's address again at each measurement.
type Limits struct {
	// AllowedHosts are the hosts the address of a check without
	// credentials may name, each "host" (any port) or "host:port", as
	// ParseAllowedHosts returns them; empty: none, so such a check may
	// reach no address.
	AllowedHosts []string
	// CredentialsDir is the manager's --metric-gate-credentials-dir, named
	// in messages; "": none, and no check may name credentials.
	CredentialsDir string
	// Credentials are the entries of CredentialsDir by name, as the
	// controller read them; a check naming credentials may send its
	// requests only to their Addresses.
	Credentials map[string]CredentialEntry
	// PodNamespaces are the namespaces whose Pods the health gate counts
	// the evictions of (--health-gate-pod-namespaces), sorted; empty: none,
	// so the gate counts no Pod (docs/rollout.md#evictions).
	PodNamespaces []string
}

// ParsePodNamespaces reads --health-gate-pod-namespaces: a comma-separated
// list of namespace names, at most maxPodNamespaces. It returns them
// sorted, each once.
func ParsePodNamespaces(list string) ([]string, error) {
	var out []string
	for n := range strings.SplitSeq(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if errs := validation.IsDNS1123Label(n); len(errs) > 0 {
			return nil, fmt.Errorf("namespace %q: %s", n, strings.Join(errs, "; "))
		}
		out = append(out, n)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > maxPodNamespaces {
		return nil, fmt.Errorf("%d namespaces: at most %d (each is one watch while a gate judges a rollout)",
			len(out), maxPodNamespaces)
	}
	return out, nil
}
