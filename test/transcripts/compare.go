package transcripts

import (
	"regexp"
	"strings"
)

// masks replace what changes from run to run with a placeholder, in the
// page's text and in the output alike: times, ages and durations, ports,
// configuration fingerprints.
var masks = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`), "<time>"},
	{regexp.MustCompile(`\b\d\d:\d\d:\d\d\b`), "<time>"},
	{regexp.MustCompile(`\b(\d+(\.\d+)?(ms|s|m|h|d))+\b`), "<age>"},
	{regexp.MustCompile(`127\.0\.0\.1:\d+`), "127.0.0.1:<port>"},
	{regexp.MustCompile(`\b[0-9a-f]{12}\b`), "<fingerprint>"},
	{regexp.MustCompile(`\s+`), " "},
}

// normalize masks a line and trims it; tables compare whatever their
// column widths.
func normalize(line string) string {
	for _, m := range masks {
		line = m.re.ReplaceAllString(line, m.with)
	}
	return strings.TrimSpace(line)
}

// ellipsis in the page stands for any number of lines of output.
const ellipsis = "..."

// matches reports whether the output's lines are those the page shows,
// masked, with each `...` line of the page standing for any lines.
func matches(want, got []string) bool {
	w := make([]string, 0, len(want))
	for _, l := range want {
		w = append(w, normalize(l))
	}
	g := make([]string, 0, len(got))
	for _, l := range got {
		g = append(g, normalize(l))
	}
	return match(trimBlank(w), trimBlank(g))
}

func match(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == ellipsis {
		for i := 0; i <= len(got); i++ {
			if match(want[1:], got[i:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && want[0] == got[0] && match(want[1:], got[1:])
}

// trimBlank drops blank lines at the end.
func trimBlank(lines []string) []string {
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
