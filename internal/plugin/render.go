package plugin

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// renderedNodeSLO is a NodeSLO as the controller would create it, without
// the server-set metadata (creationTimestamp, uid...) and the empty status.
type renderedNodeSLO struct {
	APIVersion string                  `json:"apiVersion"`
	Kind       string                  `json:"kind"`
	Metadata   renderedMetadata        `json:"metadata"`
	Spec       slov1alpha1.NodeSLOSpec `json:"spec"`
}

type renderedMetadata struct {
	Name string `json:"name"`
}

// DefaultNode stands in for a cluster when no nodes are given.
var DefaultNode = sloconfig.Node{Name: "node"}

// Render writes, in format (-o: yaml, the default, json, name, jsonpath or
// custom-columns), the NodeSLO of every node as the controller would create
// it on a fresh start from data (nil or empty: all defaults). Invalid keys
// therefore render as their defaults. Errors, warnings and node warnings go
// to errOut; the result says whether every key was valid.
//
// The output is a v1 List, written one item at a time: it holds the same
// bytes as marshalling the whole list at once (which, in YAML, costs ten
// times the memory of the JSON for 100,000 nodes), and no resolved spec
// outlives its item.
func Render(data map[string]string, nodes []sloconfig.Node, format outputFormat, out, errOut io.Writer) (bool, error) {
	var list listWriter
	switch format.form {
	case outputJSON:
		list = &jsonList{}
	case outputYAML, outputText:
		list = &yamlList{}
	case outputName:
		list = nameList{}
	default:
		list = &templateList{format: format}
	}
	cfg := sloconfig.Load(data, nil)
	printReports(cfg, data, errOut, errOut)
	w := bufio.NewWriterSize(out, 64<<10)
	list.begin(w, len(nodes))
	resolved := make([]sloconfig.Resolution, min(len(nodes), resolveChunk))
	resolver := newNodeResolver(cfg)
	for start := 0; start < len(nodes); start += resolveChunk {
		chunk := nodes[start:min(start+resolveChunk, len(nodes))]
		resolver.resolveAll(chunk, resolved)
		for j, node := range chunk {
			res := &resolved[j]
			for _, warning := range res.Warnings {
				printLine(errOut, fmt.Sprintf("warning: node %s: %s: %s", clip(node.Name), warning.Reason, warning.Message))
			}
			err := list.item(w, start+j, renderedNodeSLO{
				APIVersion: slov1alpha1.GroupVersion.String(),
				Kind:       "NodeSLO",
				Metadata:   renderedMetadata{Name: node.Name},
				Spec:       res.Spec,
			})
			if err != nil {
				return false, err
			}
		}
	}
	if err := list.end(w, len(nodes)); err != nil {
		return false, err
	}
	return cfg.Valid(), w.Flush()
}

// resolveChunk is how many nodes are resolved ahead of writing: enough to
// keep every core busy, few enough that their specs cost little memory.
const resolveChunk = 4096

// nodeResolver resolves nodes on every core, each node group once. With a
// ConfigMap of thousands of node strategies, matching selectors is most of
// render's work; but a node's resolution depends only on the labels the
// selectors read and on its bandwidth annotation, and fleets have few
// distinct combinations of those.
type nodeResolver struct {
	cfg       *sloconfig.Config
	labelKeys []string
	// annotations are the node annotations resolving reads.
	annotations []string
	// memos holds one cache per worker, so that workers share nothing.
	memos []map[string]sloconfig.Resolution
}

// maxMemo bounds each worker's cache (every node alike in nothing).
const maxMemo = 4096

func newNodeResolver(cfg *sloconfig.Config) *nodeResolver {
	memos := make([]map[string]sloconfig.Resolution, runtime.GOMAXPROCS(0))
	for i := range memos {
		memos[i] = map[string]sloconfig.Resolution{}
	}
	return &nodeResolver{
		cfg: cfg, labelKeys: cfg.SelectorLabelKeys(), annotations: sloconfig.InputAnnotations(), memos: memos,
	}
}

// resolveAll resolves nodes into out; a Config may be resolved from many
// goroutines at once.
func (nr *nodeResolver) resolveAll(nodes []sloconfig.Node, out []sloconfig.Resolution) {
	workers := min(len(nr.memos), len(nodes))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var key strings.Builder
			for i := w; i < len(nodes); i += workers {
				out[i] = nr.resolve(nodes[i], nr.memos[w], &key)
			}
		})
	}
	wg.Wait()
}

func (nr *nodeResolver) resolve(
	node sloconfig.Node, memo map[string]sloconfig.Resolution, key *strings.Builder,
) sloconfig.Resolution {
	key.Reset()
	for _, k := range nr.labelKeys {
		writePresence(key, node.Labels, k)
	}
	for _, a := range nr.annotations {
		writePresence(key, node.Annotations, a)
	}
	if res, ok := memo[key.String()]; ok {
		return res
	}
	res := nr.cfg.Resolve(node, nil)
	if len(memo) >= maxMemo {
		clear(memo)
	}
	memo[key.String()] = res
	return res
}

// writePresence appends whether m has k, and its value, length-prefixed
// so that no two different inputs write the same bytes.
func writePresence(b *strings.Builder, m map[string]string, k string) {
	v, ok := m[k]
	if !ok {
		b.WriteString("-;")
		return
	}
	b.WriteString(strconv.Itoa(len(v)))
	b.WriteByte(':')
	b.WriteString(v)
}

// listWriter writes a v1 List item by item, byte for byte as
// sigs.k8s.io/yaml.Marshal or json.MarshalIndent would write it whole.
type listWriter interface {
	begin(w *bufio.Writer, n int)
	item(w *bufio.Writer, i int, item renderedNodeSLO) error
	end(w *bufio.Writer, n int) error
}

// yamlList relies on the YAML encoder putting a sequence under a mapping
// key at the key's own indentation: the items of a List are then written
// exactly as a top-level sequence of one item is.
//
// Marshalling to YAML costs about a hundred times what the resolution does,
// and nodes share a handful of distinct specs, so an item is marshalled once
// per distinct spec with a stand-in name, which is then replaced by the
// node's name marshalled alone (a name without white space is never folded
// across lines, so it reads the same at any indentation).
type yamlList struct {
	bySpec map[string][]byte // spec as JSON: the item's YAML with stand-in name
}

const (
	standInName     = "x"
	standInNameLine = "  metadata:\n    name: " + standInName + "\n"
	// maxCachedSpecs bounds the cache when specs are many (a bandwidth
	// annotation of its own on every node).
	maxCachedSpecs = 1024
)

func (*yamlList) begin(w *bufio.Writer, n int) {
	if n == 0 {
		_, _ = w.WriteString("apiVersion: v1\nitems: []\n")
		return
	}
	_, _ = w.WriteString("apiVersion: v1\nitems:\n")
}

func (l *yamlList) item(w *bufio.Writer, _ int, item renderedNodeSLO) error {
	name := item.Metadata.Name
	if strings.ContainsAny(name, " \t\r\n") {
		return marshalYAMLItem(w, item)
	}
	key, err := json.Marshal(item.Spec)
	if err != nil {
		return err
	}
	withStandIn, found := l.bySpec[string(key)]
	if !found {
		item.Metadata.Name = standInName
		if withStandIn, err = yaml.Marshal([]renderedNodeSLO{item}); err != nil {
			return err
		}
		if l.bySpec == nil || len(l.bySpec) >= maxCachedSpecs {
			l.bySpec = map[string][]byte{}
		}
		l.bySpec[string(key)] = withStandIn
	}
	at := bytes.Index(withStandIn, []byte(standInNameLine))
	nameLine, err := yaml.Marshal(renderedMetadata{Name: name})
	if at < 0 || err != nil {
		item.Metadata.Name = name
		return marshalYAMLItem(w, item)
	}
	_, _ = w.Write(withStandIn[:at])
	_, _ = w.WriteString("  metadata:\n    ")
	_, _ = w.Write(nameLine)
	_, err = w.Write(withStandIn[at+len(standInNameLine):])
	return err
}

// marshalYAMLItem writes item as the only element of a sequence.
func marshalYAMLItem(w *bufio.Writer, item renderedNodeSLO) error {
	b, err := yaml.Marshal([]renderedNodeSLO{item})
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

func (*yamlList) end(w *bufio.Writer, _ int) error {
	_, err := w.WriteString("kind: List\n")
	return err
}

// jsonList writes what json.MarshalIndent(list, "", "    ") writes.
type jsonList struct{}

const jsonItemIndent = "        "

func (jsonList) begin(w *bufio.Writer, _ int) {
	_, _ = w.WriteString("{\n    \"apiVersion\": \"v1\",\n    \"kind\": \"List\",\n    \"items\": [")
}

func (jsonList) item(w *bufio.Writer, i int, item renderedNodeSLO) error {
	b, err := json.MarshalIndent(item, jsonItemIndent, "    ")
	if err != nil {
		return err
	}
	if i > 0 {
		_ = w.WriteByte(',')
	}
	_, _ = w.WriteString("\n" + jsonItemIndent)
	_, err = w.Write(b)
	return err
}

func (jsonList) end(w *bufio.Writer, n int) error {
	end := "\n    ]\n}\n"
	if n == 0 {
		end = "]\n}\n"
	}
	_, err := w.WriteString(end)
	return err
}
