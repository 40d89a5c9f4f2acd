package plugin

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Kinds the nodes file may hold.
const (
	kindNode     = "Node"
	kindNodeList = "NodeList"
	kindList     = "List"
	// kindConfigMapList is what kubectl prints for several ConfigMaps in JSON.
	kindConfigMapList = "ConfigMapList"
)

// nodeObject is the part of a Node, or of a document of the nodes file,
// the plugin reads.
type nodeObject struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name        string            `json:"name"`
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Items []json.RawMessage `json:"items"`
}

// nodesReader collects the Nodes of a file and what is odd about them.
type nodesReader struct {
	nodes    []sloconfig.Node
	warnings []string
}

// ReadNodes returns the nodes in r: a Node, a NodeList, a List of Nodes, or
// several YAML documents of those, or JSON. Warnings name oddities that do
// not stop rendering (no node at all, a node without a name).
//
// A file of 100,000 nodes is hundreds of megabytes, and parsing a YAML
// document whole costs about twenty times its size, so the items of a List
// are parsed one at a time: in YAML, each item of a block sequence under a
// top-level "items:" key (the layout kubectl prints) is cut at its "- "
// line; JSON is read with a streaming decoder. Only what resolving reads is
// kept of each node. Other layouts are parsed whole, up to 16 MiB a
// document.
func ReadNodes(r io.Reader) ([]sloconfig.Node, []string, error) {
	br := bufio.NewReaderSize(newCheckedReader(r, "the nodes file", MaxNodesFileBytes), 64<<10)
	nr := &nodesReader{}
	var err error
	if isJSON(br) {
		err = nr.readJSON(br)
	} else {
		err = nr.readYAML(br)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("reading nodes: %w", err)
	}
	if len(nr.nodes) == 0 {
		nr.warnings = append(nr.warnings, "the nodes file holds no Node: nothing to render")
	}
	return nr.nodes, nr.warnings, nil
}

// isJSON peeks at the first byte that is not white space.
func isJSON(br *bufio.Reader) bool {
	for i := 1; ; i++ {
		b, err := br.Peek(i)
		if err != nil {
			return false
		}
		switch b[i-1] {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return true
		default:
			return false
		}
	}
}

// add keeps what resolving needs of a node: its name, its labels and the
// one annotation the engine reads.
func (nr *nodesReader) add(obj *nodeObject, where string) error {
	if obj.Kind != "" && obj.Kind != kindNode {
		return fmt.Errorf("%s has kind %q, not Node", where, clip(obj.Kind))
	}
	sloconfig.InternLabels(obj.Metadata.Labels)
	node := sloconfig.NodeOf(&metav1.ObjectMeta{
		Name: obj.Metadata.Name, Labels: obj.Metadata.Labels, Annotations: obj.Metadata.Annotations,
	})
	if node.Name == "" {
		nr.warnings = append(nr.warnings, fmt.Sprintf("%s, a Node, has no name", where))
	}
	nr.nodes = append(nr.nodes, node)
	return nil
}

// document handles a document parsed whole.
func (nr *nodesReader) document(obj *nodeObject, where string) error {
	switch obj.Kind {
	case kindNode:
		return nr.add(obj, where)
	case kindNodeList, kindList:
		for i, item := range obj.Items {
			var node nodeObject
			itemWhere := fmt.Sprintf("%s, item %d", where, i+1)
			if err := json.Unmarshal(item, &node); err != nil {
				return fmt.Errorf("%s: %w", itemWhere, err)
			}
			if err := nr.add(&node, itemWhere); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("%s: kind %q is not Node, NodeList or List", where, clip(obj.Kind))
}

// readJSON reads a stream of JSON objects, the items of a list one by one.
func (nr *nodesReader) readJSON(r io.Reader) error {
	dec := json.NewDecoder(r)
	for doc := 1; ; doc++ {
		where := fmt.Sprintf("document %d", doc)
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if tok != json.Delim('{') {
			return fmt.Errorf("%s: not a JSON object", where)
		}
		var obj nodeObject
		streamed := 0
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
			switch tok {
			case "kind":
				err = dec.Decode(&obj.Kind)
			case "metadata":
				err = dec.Decode(&obj.Metadata)
			case listItems:
				streamed, err = nr.jsonItems(dec, where)
			default:
				var skip json.RawMessage
				err = dec.Decode(&skip)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
		}
		if _, err := dec.Token(); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if obj.Kind == kindNode && streamed > 0 {
			return fmt.Errorf("%s: a Node with items", where)
		}
		if err := nr.document(&obj, where); err != nil {
			return err
		}
	}
}

// jsonItems reads the items array of a list, adding each node.
func (nr *nodesReader) jsonItems(dec *json.Decoder, where string) (int, error) {
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		if err == nil {
			err = errors.New("items is not a list")
		}
		return 0, err
	}
	n := 0
	for ; dec.More(); n++ {
		var node nodeObject
		itemWhere := fmt.Sprintf("%s, item %d", where, n+1)
		if err := dec.Decode(&node); err != nil {
			return n, fmt.Errorf("item %d: %w", n+1, err)
		}
		if err := nr.add(&node, itemWhere); err != nil {
			return n, err
		}
	}
	_, err := dec.Token()
	return n, err
}

// yamlDocument is one YAML document being cut into items.
type yamlDocument struct {
	number    int
	line      int    // line of the document's first line
	rest      []byte // the document without its streamed items
	inItems   bool   // inside the block sequence under "items:"
	indent    int    // the sequence's indentation, -1 until its first line
	streamed  bool   // some items were cut out
	item      []byte // the item being collected
	itemLine  int
	itemCount int
	// itemIndent is the indentation of the item's own keys, -1 until known;
	// skipping is set inside a key the plugin does not read (spec, status),
	// whose lines are dropped unparsed.
	itemIndent int
	skipping   bool
}

// readYAML reads YAML documents line by line, cutting the items of a list.
func (nr *nodesReader) readYAML(br *bufio.Reader) error {
	doc := &yamlDocument{number: 1, line: 1, indent: -1}
	for line := 1; ; line++ {
		text, err := readLine(br)
		if len(text) > 0 {
			if isDocumentEnd(text) {
				if err := nr.endDocument(doc); err != nil {
					return err
				}
				doc = &yamlDocument{number: doc.number + 1, line: line + 1, indent: -1}
			} else if err := nr.yamlLine(doc, text, line); err != nil {
				return err
			}
		}
		if errors.Is(err, io.EOF) {
			return nr.endDocument(doc)
		}
		if errors.Is(err, errLineTooLong) {
			return fmt.Errorf("line %d: %w", line, err)
		}
		if err != nil {
			return err
		}
	}
}

var errLineTooLong = fmt.Errorf("the line is longer than %d MiB", maxItemBytes>>20)

// readLine returns the next line with its newline, at most maxItemBytes.
func readLine(br *bufio.Reader) ([]byte, error) {
	var long []byte
	for {
		part, err := br.ReadSlice('\n')
		if !errors.Is(err, bufio.ErrBufferFull) {
			if long == nil {
				return part, err
			}
			return append(long, part...), err
		}
		long = append(long, part...)
		if len(long) > maxItemBytes {
			return nil, errLineTooLong
		}
	}
}

// isDocumentEnd tells a document separator ("---", alone or with a
// comment, as k8s.io/apimachinery's YAML reader has it) or end marker.
func isDocumentEnd(line []byte) bool {
	t := bytes.TrimSpace(line)
	if rest, ok := bytes.CutPrefix(t, []byte("---")); ok {
		rest = bytes.TrimSpace(rest)
		return len(rest) == 0 || rest[0] == '#'
	}
	return bytes.Equal(t, []byte("..."))
}

// yamlLine files one line of doc.
func (nr *nodesReader) yamlLine(doc *yamlDocument, text []byte, line int) error {
	trimmed := bytes.TrimLeft(text, " ")
	indent := len(text) - len(trimmed)
	blank := len(bytes.TrimSpace(trimmed)) == 0 || trimmed[0] == '#'
	if doc.inItems && !blank {
		if doc.indent < 0 {
			if !isSequenceEntry(trimmed) {
				// Not a block sequence (a flow one, say): parse it whole.
				doc.inItems, doc.streamed = false, false
				doc.rest = append(doc.rest, "items:\n"...)
			}
			doc.indent = indent
		}
		switch {
		case !doc.inItems:
		case indent == doc.indent && isSequenceEntry(trimmed):
			if err := nr.flushItem(doc); err != nil {
				return err
			}
			doc.itemLine = line
			content := bytes.TrimLeft(trimmed[1:], " ")
			doc.itemIndent, doc.skipping = -1, false
			if len(bytes.TrimSpace(content)) > 0 {
				doc.itemIndent = len(text) - len(content)
				doc.skipping = isSkippedKey(content)
			}
			doc.item = append(doc.item, '\n') // never nil: an item was started
			if doc.itemIndent >= 0 && !doc.skipping {
				doc.item = append(doc.item, bytes.Repeat([]byte{' '}, doc.itemIndent)...)
				doc.item = append(doc.item, content...)
			}
			return nil
		case indent > doc.indent:
		default:
			// Back to the document's own keys.
			if err := nr.flushItem(doc); err != nil {
				return err
			}
			doc.inItems = false
		}
	}
	if doc.inItems {
		if blank && doc.item == nil {
			return nil // before the first item
		}
		if !blank && (doc.itemIndent < 0 || indent == doc.itemIndent) {
			doc.itemIndent = indent
			doc.skipping = isSkippedKey(trimmed)
		}
		if doc.skipping {
			return nil
		}
		doc.item = append(doc.item, text...)
		if len(doc.item) > maxItemBytes {
			return fmt.Errorf("document %d, the item at line %d is larger than %d MiB",
				doc.number, doc.itemLine, maxItemBytes>>20)
		}
		return nil
	}
	if indent == 0 && string(bytes.TrimRight(text, " \t\r\n")) == "items:" {
		doc.inItems, doc.streamed, doc.indent = true, true, -1
		return nil
	}
	doc.rest = append(doc.rest, text...)
	if len(doc.rest) > maxItemBytes {
		return fmt.Errorf("document %d (line %d) is larger than %d MiB: a List larger than that must have its items "+
			"under a top-level \"items:\" key, one \"- \" per item, as kubectl prints it",
			doc.number, doc.line, maxItemBytes>>20)
	}
	return nil
}

// isSkippedKey tells whether an item's line starts a block mapping key
// the plugin does not read (spec, status...), whose lines may be dropped
// unparsed. Anything else (kind, metadata, a flow mapping, a quoted key) is
// kept for the parser.
func isSkippedKey(line []byte) bool {
	key, _, found := bytes.Cut(line, []byte(":"))
	if !found || len(key) == 0 || string(key) == "kind" || string(key) == "metadata" {
		return false
	}
	for _, c := range key {
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '-' && c != '_' {
			return false
		}
	}
	rest := line[len(key)+1:]
	return len(rest) == 0 || rest[0] == ' ' || rest[0] == '\n' || rest[0] == '\r'
}

func isSequenceEntry(trimmed []byte) bool {
	return trimmed[0] == '-' && (len(trimmed) == 1 || trimmed[1] == ' ' || trimmed[1] == '\n' || trimmed[1] == '\r')
}

// flushItem parses the item collected.
func (nr *nodesReader) flushItem(doc *yamlDocument) error {
	if doc.item == nil {
		return nil
	}
	doc.itemCount++
	where := fmt.Sprintf("document %d, item %d (line %d)", doc.number, doc.itemCount, doc.itemLine)
	var node nodeObject
	if err := yaml.Unmarshal(doc.item, &node); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	doc.item = nil
	return nr.add(&node, where)
}

// endDocument parses what is left of doc and checks its kind.
func (nr *nodesReader) endDocument(doc *yamlDocument) error {
	if err := nr.flushItem(doc); err != nil {
		return err
	}
	where := fmt.Sprintf("document %d", doc.number)
	var obj nodeObject
	if err := yaml.Unmarshal(doc.rest, &obj); err != nil {
		return fmt.Errorf("%s (line %d): %w", where, doc.line, err)
	}
	if !doc.streamed {
		if isOnlyComments(doc.rest) {
			return nil // an empty document
		}
		return nr.document(&obj, where)
	}
	if obj.Kind != kindList && obj.Kind != kindNodeList {
		return fmt.Errorf("%s: kind %q is not Node, NodeList or List", where, clip(obj.Kind))
	}
	return nr.document(&obj, where) // items not cut (none, normally)
}

func isOnlyComments(b []byte) bool {
	for line := range bytes.Lines(b) {
		t := bytes.TrimSpace(line)
		if len(t) > 0 && t[0] != '#' {
			return false
		}
	}
	return true
}
