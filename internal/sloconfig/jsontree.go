package sloconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// maxJSONDepth bounds nesting: real configurations are less than ten levels
// deep, and a bound keeps hostile input from exhausting the stack.
const maxJSONDepth = 64

// jsonNode is one parsed JSON value together with where it starts in the
// document, so that every error and warning can name a line and column.
// value holds nil (null), bool, string, json.Number, jsonObject or jsonArray.
type jsonNode struct {
	offset int64
	value  any
}

// jsonObject keeps members in document order, duplicates included, so that
// duplicate keys can be reported.
type jsonObject []jsonMember

type jsonMember struct {
	key    string
	offset int64
	value  *jsonNode
}

type jsonArray []*jsonNode

// syntaxError is malformed JSON at a byte offset.
type syntaxError struct {
	offset int64
	msg    string
}

// document is one ConfigMap value: its bytes and its parsed tree.
type document struct {
	data []byte
	root *jsonNode
	// at caches the last position computed: messages are made mostly in
	// document order, so each position is counted on from the previous
	// one, and a document with many findings costs linear, not quadratic,
	// time.
	at cursor
}

// cursor is a byte offset with its line and column (columns count characters).
type cursor struct {
	offset       int64
	line, column int
}

// position renders a byte offset as "line L, column C" (columns count characters).
func (d *document) position(offset int64) string {
	offset = min(max(offset, 0), int64(len(d.data)))
	if offset < d.at.offset || d.at.line == 0 {
		d.at = cursor{line: 1, column: 1}
	}
	for i := d.at.offset; i < offset; i++ {
		switch b := d.data[i]; {
		case b == '\n':
			d.at.line, d.at.column = d.at.line+1, 1
		case utf8.RuneStart(b):
			d.at.column++
		}
	}
	d.at.offset = offset
	return fmt.Sprintf("line %d, column %d", d.at.line, d.at.column)
}

// parseDocument parses raw into a position-tracking tree. Numbers are kept
// as json.Number so that integers are checked exactly.
func parseDocument(raw string) (*document, *syntaxError) {
	d := &document{data: []byte(raw)}
	p := &treeParser{data: d.data, dec: json.NewDecoder(bytes.NewReader(d.data))}
	p.dec.UseNumber()
	root, err := p.value(0)
	if err != nil {
		return d, p.syntaxError(err)
	}
	start := p.skip(p.dec.InputOffset())
	if _, err := p.dec.Token(); !errors.Is(err, io.EOF) {
		return d, &syntaxError{offset: start, msg: "unexpected data after the end of the JSON document"}
	}
	d.root = root
	return d, nil
}

type treeParser struct {
	data []byte
	dec  *json.Decoder
}

// skip moves past whitespace and the separators the Decoder consumes
// silently, to the first byte of the next token.
func (p *treeParser) skip(off int64) int64 {
	for off < int64(len(p.data)) {
		switch p.data[off] {
		case ' ', '\t', '\r', '\n', ':', ',':
			off++
		default:
			return off
		}
	}
	return off
}

func (p *treeParser) next() (json.Token, int64, error) {
	start := p.skip(p.dec.InputOffset())
	tok, err := p.dec.Token()
	return tok, start, err
}

func (p *treeParser) value(depth int) (*jsonNode, error) {
	tok, start, err := p.next()
	if err != nil {
		return nil, err
	}
	node := &jsonNode{offset: start, value: tok}
	delim, isDelim := tok.(json.Delim)
	if !isDelim {
		return node, nil
	}
	if depth >= maxJSONDepth {
		return nil, &syntaxError{offset: start, msg: fmt.Sprintf("nesting deeper than %d levels", maxJSONDepth)}
	}
	switch delim {
	case '{':
		node.value, err = p.object(depth + 1)
	case '[':
		node.value, err = p.array(depth + 1)
	default:
		err = &syntaxError{offset: start, msg: fmt.Sprintf("unexpected %q", rune(delim))}
	}
	return node, err
}

func (p *treeParser) object(depth int) (jsonObject, error) {
	obj := jsonObject{}
	for p.dec.More() {
		tok, start, err := p.next()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, &syntaxError{offset: start, msg: "object key must be a string"}
		}
		val, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		obj = append(obj, jsonMember{key: key, offset: start, value: val})
	}
	_, _, err := p.next() // the closing brace
	return obj, err
}

func (p *treeParser) array(depth int) (jsonArray, error) {
	arr := jsonArray{}
	for p.dec.More() {
		val, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		arr = append(arr, val)
	}
	_, _, err := p.next() // the closing bracket
	return arr, err
}

// syntaxError turns a Decoder error into one with an offset.
func (p *treeParser) syntaxError(err error) *syntaxError {
	var own *syntaxError
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &own):
		return own
	case errors.As(err, &syn):
		return &syntaxError{offset: syn.Offset, msg: syn.Error()}
	case errors.Is(err, io.EOF) && len(bytes.TrimSpace(p.data)) == 0:
		return &syntaxError{offset: 0, msg: "the value is empty; write {} for the built-in defaults"}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &syntaxError{offset: int64(len(p.data)), msg: "unexpected end of JSON input"}
	default:
		return &syntaxError{offset: p.dec.InputOffset(), msg: err.Error()}
	}
}

func (e *syntaxError) Error() string { return e.msg }
