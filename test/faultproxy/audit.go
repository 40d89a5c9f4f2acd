package faultproxy

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// AuditedResource is a resource whose writes the audit log records:
// Resource and each of Subresources ("status", say).
type AuditedResource struct {
	Group        string
	Resource     string
	Subresources []string
}

// ProjectResources are the resources the manager writes: NodeSLOs, and
// NodeSLORollouts with their status.
var ProjectResources = []AuditedResource{
	{Group: "slo.koordinator.sh", Resource: "nodeslos", Subresources: []string{"status"}},
	{Group: "nodeslo.koordinator.sh", Resource: "nodeslorollouts", Subresources: []string{"status"}},
}

// AuditLog is kube-apiserver's own record of the writes to some resources:
// what a fault scenario counts a manager's writes by, independently of the
// manager's client and of the proxy (a write the proxy reset after
// forwarding is there; one it refused is not).
type AuditLog struct {
	// Path is the log file, one JSON event a line.
	Path       string
	policyPath string
}

// NewAuditLog writes, in dir, an audit policy that records the writes
// (create, update, patch, delete, deletecollection) to resources at the
// Metadata level (who, what, the answer's code; no bodies) and nothing
// else, and names the log file. Its APIServerFlags turn it on.
func NewAuditLog(dir string, resources ...AuditedResource) (*AuditLog, error) {
	groups := make([]map[string]any, 0, len(resources))
	for _, r := range resources {
		names := []string{r.Resource}
		for _, sub := range r.Subresources {
			names = append(names, r.Resource+"/"+sub)
		}
		groups = append(groups, map[string]any{"group": r.Group, "resources": names})
	}
	policy := map[string]any{
		"apiVersion": "audit.k8s.io/v1",
		"kind":       "Policy",
		"omitStages": []string{"RequestReceived", "ResponseStarted"},
		"rules": []any{
			map[string]any{"level": "Metadata", "verbs": WriteVerbs, "resources": groups},
			map[string]any{"level": "None"},
		},
	}
	raw, err := yaml.Marshal(policy)
	if err != nil {
		return nil, fmt.Errorf("faultproxy: the audit policy: %w", err)
	}
	a := &AuditLog{Path: filepath.Join(dir, "audit.log"), policyPath: filepath.Join(dir, "audit-policy.yaml")}
	if err := os.WriteFile(a.policyPath, raw, 0o600); err != nil {
		return nil, fmt.Errorf("faultproxy: writing the audit policy: %w", err)
	}
	return a, nil
}

// APIServerFlags are kube-apiserver's flags for this log
// (envtestharness.Options.APIServerFlags). The log backend's default mode
// (blocking) writes an event as the request completes, so a write's line
// is there by the time, or just after, its client has the answer: read it
// with Eventually.
func (a *AuditLog) APIServerFlags() map[string]string {
	return map[string]string{
		"audit-policy-file": a.policyPath,
		"audit-log-path":    a.Path,
		// One file, never rotated away under a reader.
		"audit-log-maxsize": "0",
	}
}

// auditEvent is the part of an audit.k8s.io/v1 Event a count reads.
type auditEvent struct {
	Stage      string        `json:"stage"`
	Verb       string        `json:"verb"`
	RequestURI string        `json:"requestURI"`
	User       auditUser     `json:"user"`
	Impersonee *auditUser    `json:"impersonatedUser"`
	ObjectRef  *auditObject  `json:"objectRef"`
	Response   *auditOutcome `json:"responseStatus"`
}

type auditUser struct {
	Username string `json:"username"`
}

type auditObject struct {
	Resource    string `json:"resource"`
	Subresource string `json:"subresource"`
}

type auditOutcome struct {
	Code int `json:"code"`
}

// actor is the user the apiserver acted as: the impersonated one, if any.
func (e auditEvent) actor() string {
	if e.Impersonee != nil {
		return e.Impersonee.Username
	}
	return e.User.Username
}

// SuccessfulWrites counts the writes of user to resource that the
// apiserver carried out (WritesByUser).
func (a *AuditLog) SuccessfulWrites(user, resource string) (int, error) {
	byUser, err := a.WritesByUser(resource)
	return byUser[user], err
}

// WritesByUser counts, for each user, the writes to resource ("nodeslos",
// or "nodeslorollouts/status" for a subresource) that the apiserver carried
// out: answered 2xx, and not a dry run, which stores nothing. The user is
// the identity the apiserver acted as (the impersonated user of an
// impersonating client).
func (a *AuditLog) WritesByUser(resource string) (map[string]int, error) {
	name, sub, _ := strings.Cut(resource, "/")
	byUser := map[string]int{}
	f, err := os.Open(a.Path)
	if errors.Is(err, fs.ErrNotExist) {
		// The apiserver creates the file with its first event.
		return byUser, nil
	}
	if err != nil {
		return nil, fmt.Errorf("faultproxy: reading the audit log: %w", err)
	}
	defer func() { _ = f.Close() }()
	lines := bufio.NewScanner(f)
	lines.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for line := 1; lines.Scan(); line++ {
		var e auditEvent
		if err := json.Unmarshal(lines.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("faultproxy: %s:%d: %w", a.Path, line, err)
		}
		if e.carriedOutWrite(name, sub) {
			byUser[e.actor()]++
		}
	}
	if err := lines.Err(); err != nil {
		return nil, fmt.Errorf("faultproxy: reading the audit log: %w", err)
	}
	return byUser, nil
}

// carriedOutWrite reports whether e is a write to resource/subresource that
// the apiserver answered with success and that was not a dry run.
func (e auditEvent) carriedOutWrite(resource, subresource string) bool {
	return e.Stage == "ResponseComplete" && slices.Contains(WriteVerbs, e.Verb) &&
		e.ObjectRef != nil && e.ObjectRef.Resource == resource && e.ObjectRef.Subresource == subresource &&
		e.Response != nil && e.Response.Code >= 200 && e.Response.Code < 300 &&
		!strings.Contains(e.RequestURI, "dryRun=")
}
