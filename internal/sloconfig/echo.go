package sloconfig

import (
	"fmt"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// maxEchoed bounds how much of a name or value from the ConfigMap a message
// repeats: a hostile 20 MiB field name must not become a 20 MiB log line.
const maxEchoed = 100

// echo is s as every error and warning quotes it (see Truncate).
func echo(s string) string { return Truncate(s, maxEchoed) }

// Echo is s as every error and warning of the engine quotes it, for the
// parsers of keys outside it (internal/rollout) to quote values alike.
func Echo(s string) string { return echo(s) }

// Truncate returns s whole when it has at most limit bytes, else its first
// limit bytes (cut between characters) followed by its full size, so that
// no message repeats a huge value. The plugin clips what it prints with it too.
func Truncate(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	return fmt.Sprintf("%s…(%d bytes)", cutBetweenRunes(s, limit), len(s))
}

// Shorten returns s whole when it has at most limit bytes, else a prefix cut
// between characters and marked with "...", limit bytes at most in all: for
// text with a hard size limit, such as an Event note.
func Shorten(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	return cutBetweenRunes(s, limit-3) + "..."
}

// CutAt returns s whole when it has at most limit bytes, else a prefix cut
// between characters and followed by "… (cut at <limit> bytes)", limit
// bytes at most in all: for text written by someone else (a Node's status,
// an annotation, a Prometheus error) kept where the size is bounded, which
// says that it was cut and where. limit must exceed the mark's length.
func CutAt(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	mark := fmt.Sprintf("… (cut at %d bytes)", limit)
	return cutBetweenRunes(s, max(limit-len(mark), 0)) + mark
}

// cutBetweenRunes returns the longest prefix of s of at most n bytes that
// does not split a UTF-8 character.
func cutBetweenRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// echoErrors bounds the values and paths that errors from other packages
// (apimachinery's selector validation, encoding/json) quote.
func echoErrors(errs field.ErrorList) field.ErrorList {
	for _, e := range errs {
		if s, ok := e.BadValue.(string); ok {
			e.BadValue = echo(s)
		}
		if len(e.Field) > 4*maxEchoed {
			e.Field = echo(e.Field)
		}
		if len(e.Detail) > 4*maxEchoed {
			e.Detail = echo(e.Detail)
		}
	}
	return errs
}

// maxReported bounds the errors, and separately the warnings, a key
// reports: past a few dozen, more lines help nobody, and a hostile
// document could otherwise produce hundreds of thousands.
const maxReported = 50

// findings collects a key's errors and warnings, keeping the first
// maxReported of each and counting the rest.
type findings struct {
	errs                   field.ErrorList
	warnings               []string
	moreErrs, moreWarnings int
}

func (f *findings) fail(errs ...*field.Error) {
	for _, e := range errs {
		if len(f.errs) < maxReported {
			f.errs = append(f.errs, e)
		} else {
			f.moreErrs++
		}
	}
}

// warning reports whether another warning would be kept, so that callers
// format only those.
func (f *findings) warning() bool {
	if len(f.warnings) < maxReported {
		return true
	}
	f.moreWarnings++
	return false
}

// failed is the number of errors found so far, kept or not.
func (f *findings) failed() int { return len(f.errs) + f.moreErrs }

// report returns the kept errors and warnings, each list closed by a line
// that counts what was left out.
func (f *findings) report() (field.ErrorList, []string) {
	errs, warnings := echoErrors(f.errs), f.warnings
	if f.moreErrs > 0 {
		errs = append(errs, rootError(fmt.Sprintf("%d more errors are not listed", f.moreErrs)))
	}
	if f.moreWarnings > 0 {
		warnings = append(warnings, fmt.Sprintf("%d more warnings are not listed", f.moreWarnings))
	}
	return errs, warnings
}
