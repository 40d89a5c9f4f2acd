package plugin

import (
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode/utf8"
)

// Text from the cluster reaches a terminal inert (docs/kubectl-nodeslo.md#text-from-the-cluster):
// a condition's status, a Prometheus error, a change-cause or a ConfigMap
// value is written by others, and a terminal acts on the control
// characters in it: an escape sequence can erase the line above, retitle
// the window or recolour what follows, a carriage return or a newline can
// forge a line of its own ("halted: no"). kubectl escapes what it prints
// for the same reason (CVE-2021-25743). Output of whole objects (-o json,
// -o yaml) is excepted: it is encoded already.

// inert returns s with every character a terminal acts on shown as an
// escape instead: C0 controls (newline and tab included: a line printed is
// one line, a table cell one cell), DEL, C1 controls, the bidirectional
// overrides that reorder what is shown, and bytes that are not UTF-8 (an
// 8-bit terminal reads 0x9b as an escape). Everything else is kept.
func inert(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, actsOnTerminal) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80 && actsOnTerminal(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case actsOnTerminal(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// actsOnTerminal reports whether a terminal acts on r rather than showing
// it: the C0 and C1 controls, DEL, and the bidirectional embeddings,
// overrides and isolates.
func actsOnTerminal(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r <= 0x9f) ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// fprintf is fmt.Fprintf with every text argument (a string, a string
// type, an error) made inert: the format is the plugin's own, the
// arguments may come from the cluster. Errors are left to w (a
// bufio.Writer, an errWriter or a tabwriter keeps them).
func fprintf(w io.Writer, format string, args ...any) {
	safe := make([]any, len(args))
	for i, a := range args {
		safe[i] = inertArg(a)
	}
	_, _ = fmt.Fprintf(w, format, safe...)
}

// inertArg is a made inert when it is text, a unchanged otherwise.
func inertArg(a any) any {
	switch v := a.(type) {
	case string:
		return inert(v)
	case error:
		return inert(v.Error())
	case fmt.Stringer:
		if reflect.ValueOf(v).Kind() == reflect.String {
			return inert(v.String())
		}
		return a
	}
	if v := reflect.ValueOf(a); v.Kind() == reflect.String {
		return inert(v.String())
	}
	return a
}
