package sloconfig

import (
	"fmt"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// maxEchoed bounds how much of a name or value from the ConfigMap a message
// repeats: a hostile 20 MiB field name must not become a 20 MiB log line.
const maxEchoed = 100

// echo is s as every error and warning quotes it: whole when short, else
// its first maxEchoed bytes (cut between characters) and its full size.
func echo(s string) string {
	if len(s) <= maxEchoed {
		return s
	}
	cut := maxEchoed
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s...[%d bytes in all]", s[:cut], len(s))
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
