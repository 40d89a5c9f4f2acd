package monitoring

import (
	"fmt"
	"strings"
)

// The PromQL module (github.com/prometheus/prometheus) would upgrade about
// thirty of the product's dependencies, client_golang among them, for one
// test; so this file reads just what the test needs from an expression: its
// vector selectors, i.e. metric names and label matchers. It is strict: what
// it does not understand is an error, never a silent skip. Syntax as a whole
// is checked by Prometheus's parser in `make test-alerts` (promtool).

// selector is one vector selector of an expression.
type selector struct {
	metric   string
	matchers []matcher
}

// matcher is one label matcher: label op "value".
type matcher struct {
	label, op, value string
}

type tokenKind int

const (
	identToken tokenKind = iota
	stringToken
	numberToken
	variableToken // a Grafana variable outside a string, such as $__rate_interval
	punctToken
)

type token struct {
	kind tokenKind
	text string // a string token's text is its unquoted value
}

// Words that are not metric names: operators, modifiers, grouping keywords
// and aggregations (an aggregation may be followed by "by (...)" before its
// parenthesis, so it is not recognised as a function by what follows it).
var (
	groupingWords = wordSet("by", "without", "on", "ignoring", "group_left", "group_right")
	reservedWords = wordSet("and", "or", "unless", "bool", "offset", "atan2", "inf", "nan",
		"sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values",
		"bottomk", "topk", "quantile", "limitk", "limit_ratio")
	matchOps = wordSet("=", "!=", "=~", "!~")
)

func wordSet(words ...string) map[string]bool {
	s := make(map[string]bool, len(words))
	for _, w := range words {
		s[w] = true
	}
	return s
}

// selectorsIn returns the vector selectors of a PromQL expression.
func selectorsIn(expr string) ([]selector, error) {
	toks, err := tokenize(expr)
	if err != nil {
		return nil, err
	}
	var out []selector
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.kind == punctToken && t.text == "[":
			if i, err = skipGroup(toks, i, "[", "]"); err != nil {
				return nil, err
			}
		case t.kind == punctToken && t.text == "{":
			// {__name__="..."}: a selector without a bare metric name.
			sel, end, err := readMatchers(toks, i)
			if err != nil {
				return nil, err
			}
			if sel.metric == "" {
				return nil, fmt.Errorf("a selector without a metric name: write it, or __name__=\"...\"")
			}
			out, i = append(out, sel), end
		case t.kind != identToken:
		case groupingWords[t.text]:
			if i+1 < len(toks) && toks[i+1].text == "(" {
				if i, err = skipGroup(toks, i+1, "(", ")"); err != nil {
					return nil, err
				}
			}
		case t.text == "offset":
			i++ // its duration
		case reservedWords[t.text]:
		case i+1 < len(toks) && toks[i+1].kind == punctToken && toks[i+1].text == "(":
			// a function call
		default:
			sel := selector{metric: t.text}
			if i+1 < len(toks) && toks[i+1].kind == punctToken && toks[i+1].text == "{" {
				withMatchers, end, err := readMatchers(toks, i+1)
				if err != nil {
					return nil, err
				}
				sel.matchers, i = withMatchers.matchers, end
			}
			out = append(out, sel)
		}
	}
	return out, nil
}

// readMatchers reads {label op "value", ...} starting at toks[open] and
// returns the selector and the index of the closing brace.
func readMatchers(toks []token, open int) (selector, int, error) {
	var sel selector
	i := open + 1
	for {
		if i < len(toks) && toks[i].text == "}" && toks[i].kind == punctToken {
			return sel, i, nil
		}
		if i+2 >= len(toks) {
			return sel, i, fmt.Errorf("unterminated label matchers")
		}
		label, op, value := toks[i], toks[i+1], toks[i+2]
		if (label.kind != identToken && label.kind != stringToken) || op.kind != punctToken ||
			!matchOps[op.text] || value.kind != stringToken {
			return sel, i, fmt.Errorf("expected label, operator and quoted value at %q %q %q",
				label.text, op.text, value.text)
		}
		if label.text == "__name__" && op.text == "=" {
			sel.metric = value.text
		} else {
			sel.matchers = append(sel.matchers, matcher{label: label.text, op: op.text, value: value.text})
		}
		i += 3
		if i < len(toks) && toks[i].kind == punctToken && toks[i].text == "," {
			i++
		}
	}
}

// skipGroup returns the index of the token closing the group opened at
// toks[open].
func skipGroup(toks []token, open int, opening, closing string) (int, error) {
	depth := 0
	for i := open; i < len(toks); i++ {
		if toks[i].kind != punctToken {
			continue
		}
		switch toks[i].text {
		case opening:
			depth++
		case closing:
			depth--
			if depth == 0 {
				return i, nil
			}
		}
	}
	return 0, fmt.Errorf("%q without its %q", opening, closing)
}

func isIdentStart(c byte) bool {
	return c == '_' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentPart(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// tokenize splits expr into tokens; it knows PromQL's strings, numbers and
// durations, identifiers, comments and operators, and Grafana's variables.
func tokenize(expr string) ([]token, error) {
	var toks []token
	for i := skipSpace(expr, 0); i < len(expr); i = skipSpace(expr, i) {
		c := expr[i]
		var t token
		switch {
		case c == '"' || c == '\'' || c == '`':
			s, end, err := readString(expr, i)
			if err != nil {
				return nil, err
			}
			t, i = token{kind: stringToken, text: s}, end
		case isDigit(c) || (c == '.' && i+1 < len(expr) && isDigit(expr[i+1])):
			t, i = scanWhile(expr, i, numberToken, func(c byte) bool { return isIdentPart(c) || c == '.' })
		case isIdentStart(c):
			t, i = scanWhile(expr, i, identToken, isIdentPart)
		case c == '$':
			t, i = scanWhile(expr, i, variableToken, func(c byte) bool { return isIdentPart(c) || c == '{' || c == '}' })
		case strings.IndexByte("(){}[],+-*/%^@", c) >= 0:
			t, i = token{kind: punctToken, text: string(c)}, i+1
		case strings.IndexByte("=!<>", c) >= 0:
			op := string(c)
			if i+1 < len(expr) && (expr[i+1] == '=' || expr[i+1] == '~') {
				op = expr[i : i+2]
			}
			t, i = token{kind: punctToken, text: op}, i+len(op)
		default:
			return nil, fmt.Errorf("unexpected %q at offset %d", c, i)
		}
		toks = append(toks, t)
	}
	return toks, nil
}

// skipSpace returns the index of the first byte at or after i that is
// neither white space nor in a comment.
func skipSpace(expr string, i int) int {
	for i < len(expr) {
		switch expr[i] {
		case ' ', '\t', '\n', '\r':
			i++
		case '#':
			for i < len(expr) && expr[i] != '\n' {
				i++
			}
		default:
			return i
		}
	}
	return i
}

// scanWhile returns the token of the given kind made of expr[start] and the
// bytes after it that satisfy part, and the index after it.
func scanWhile(expr string, start int, kind tokenKind, part func(byte) bool) (token, int) {
	i := start + 1
	for i < len(expr) && part(expr[i]) {
		i++
	}
	return token{kind: kind, text: expr[start:i]}, i
}

// readString reads the quoted string starting at expr[start] and returns
// its value (escapes kept as written: the values compared are plain words)
// and the index after its closing quote.
func readString(expr string, start int) (string, int, error) {
	quote := expr[start]
	var b strings.Builder
	for i := start + 1; i < len(expr); i++ {
		switch {
		case expr[i] == '\\' && quote != '`' && i+1 < len(expr):
			b.WriteByte(expr[i])
			b.WriteByte(expr[i+1])
			i++
		case expr[i] == quote:
			return b.String(), i + 1, nil
		default:
			b.WriteByte(expr[i])
		}
	}
	return "", 0, fmt.Errorf("unterminated string at offset %d", start)
}
