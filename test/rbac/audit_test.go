package rbac_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

// auditEvent is the part of an audit.k8s.io/v1 Event the review reads.
type auditEvent struct {
	Stage      string `json:"stage"`
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	User       struct {
		Username string `json:"username"`
	} `json:"user"`
	// ObjectRef is nil for a non-resource request (discovery, /version).
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
		APIGroup    string `json:"apiGroup"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
}

// permission returns what the request needed; ok is false for a
// non-resource request.
func (e auditEvent) permission() (p permission, ok bool) {
	if e.ObjectRef == nil {
		return permission{}, false
	}
	resource := e.ObjectRef.Resource
	if e.ObjectRef.Subresource != "" {
		resource += "/" + e.ObjectRef.Subresource
	}
	return permission{e.Verb, e.ObjectRef.APIGroup, resource, e.ObjectRef.Namespace, e.ObjectRef.Name}, true
}

func (e auditEvent) String() string {
	code := 0
	if e.ResponseStatus != nil {
		code = e.ResponseStatus.Code
	}
	return fmt.Sprintf("%s %s -> %d", e.Verb, e.RequestURI, code)
}

// readAuditLog returns the events of user in the JSON-lines audit log at path.
func readAuditLog(path, user string) ([]auditEvent, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	var events []auditEvent
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for line := 1; scanner.Scan(); line++ {
		var e auditEvent
		if err := json.Unmarshal(scanner.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if e.User.Username == user {
			events = append(events, e)
		}
	}
	return events, scanner.Err()
}
