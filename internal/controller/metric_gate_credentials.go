package controller

import (
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// CredentialAddresses is the file of an entry of the credentials directory
// that lists, one https address a line, where its credential may be sent
// (docs/rollout.md#metric-gate-credentials): a key of the Secret mounted there.
const CredentialAddresses = rollout.CredentialAddressesFile

// keyLimits reads what the manager allows a strategy as it is when
// asked: the allowed hosts and the Pod namespaces of its flags, and the
// entries of its credentials directory with their addresses files, which
// the kubelet updates in place whenever the operator changes a Secret. So
// the strategy is checked against the files of the moment, and each query
// again.
type keyLimits struct {
	hosts []string
	// dir is --metric-gate-credentials-dir ("": none).
	dir string
	// podNamespaces are --health-gate-pod-namespaces, sorted.
	podNamespaces []string
}

// now reads every entry of the credentials directory. An entry whose
// name no check may give (not a DNS label) or that is not a directory is
// left out; a directory that cannot be listed has no entry.
func (m keyLimits) now() rollout.Limits {
	out := rollout.Limits{AllowedHosts: m.hosts, CredentialsDir: m.dir, PodNamespaces: m.podNamespaces}
	if m.dir == "" {
		return out
	}
	entries, err := os.ReadDir(m.dir)
	if err != nil {
		return out
	}
	out.Credentials = map[string]rollout.CredentialEntry{}
	for _, e := range entries {
		if name := e.Name(); m.isEntry(name) {
			out.Credentials[name] = m.readEntry(name)
		}
	}
	return out
}

// forCredential reads the one entry name ("": none), as a query needs.
func (m keyLimits) forCredential(name string) rollout.Limits {
	out := rollout.Limits{AllowedHosts: m.hosts, CredentialsDir: m.dir, PodNamespaces: m.podNamespaces}
	if name != "" && m.dir != "" && m.isEntry(name) {
		out.Credentials = map[string]rollout.CredentialEntry{name: m.readEntry(name)}
	}
	return out
}

// isEntry reports whether name is an entry a check may name: a DNS label
// (never a path) that is a directory (a mounted Secret) of m.dir.
func (m keyLimits) isEntry(name string) bool {
	if len(validation.IsDNS1123Label(name)) > 0 {
		return false
	}
	info, err := os.Stat(filepath.Join(m.dir, name))
	return err == nil && info.IsDir()
}

// readEntry reads the addresses file of the entry name, at most
// maxCredentialFile bytes, into what rollout checks a check against.
func (m keyLimits) readEntry(name string) rollout.CredentialEntry {
	content, found, err := readCredentialFile(filepath.Join(m.dir, name), CredentialAddresses)
	switch {
	case err != nil:
		return rollout.CredentialEntry{Problem: "cannot be read: " + err.Error()}
	case !found:
		return rollout.CredentialEntry{Problem: "does not exist"}
	}
	addresses, err := rollout.ParseCredentialAddresses(string(content))
	if err != nil {
		return rollout.CredentialEntry{Problem: err.Error()}
	}
	return rollout.CredentialEntry{Addresses: addresses}
}
