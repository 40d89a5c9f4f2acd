package localcluster

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// CompactEtcd compacts etcd's history up to its current revision, as
// kube-apiserver's own compaction (every 5 minutes by default) eventually
// would, and returns that revision. A watch that resumes from an older
// resourceVersion after it is told 410 Gone (when the resource is not
// served from the apiserver's watch cache, which keeps its own window):
// the client must list again. It speaks etcd's JSON gateway (on by
// default, on etcd's client URL, which envtest serves without TLS): two
// calls do not need a client library.
func (c *Cluster) CompactEtcd(ctx context.Context) (int64, error) {
	var head struct {
		Header struct {
			Revision string `json:"revision"`
		} `json:"header"`
	}
	// A range over one key answers with the store's current revision.
	if err := c.etcdCall(ctx, "/v3/kv/range", map[string]any{"key": []byte("/registry")}, &head); err != nil {
		return 0, err
	}
	revision, err := strconv.ParseInt(head.Header.Revision, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("etcd's revision %q: %w", head.Header.Revision, err)
	}
	body := map[string]any{"revision": revision, "physical": true}
	if err := c.etcdCall(ctx, "/v3/kv/compaction", body, nil); err != nil {
		return 0, err
	}
	return revision, nil
}

// etcdCall posts in as JSON to etcd's gateway at path and decodes the
// answer into out (when not nil).
func (c *Cluster) etcdCall(ctx context.Context, path string, in, out any) error {
	payload, err := json.Marshal(in)
	if err != nil {
		return err
	}
	u := *c.env.ControlPlane.Etcd.URL
	u.Path = path
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(payload))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("etcd %s: %w", path, err)
	}
	defer func() { _ = resp.Body.Close() }()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("etcd %s: reading the answer: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("etcd %s: %s: %s", path, resp.Status, answer)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(answer, out); err != nil {
		return fmt.Errorf("etcd %s: decoding %s: %w", path, answer, err)
	}
	return nil
}
