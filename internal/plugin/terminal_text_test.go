package plugin

import (
	"bytes"
	"strings"
	"testing"
	"time"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
)

func TestInert(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Ready=False since 12:00:00", "Ready=False since 12:00:00"},
		{"änderung €", "änderung €"},
		{"\x1b[2K\x1b[1Ahalted: no", `\x1b[2K\x1b[1Ahalted: no`},
		{"a\rb\nc\td", `a\rb\nc\td`},
		{"bell\x07 del\x7f", `bell\x07 del\x7f`},
		{"csi\u009b31m", `csi\u009b31m`},
		{"8-bit csi \x9b31m", `8-bit csi \x9b31m`},
		{"abc\u202eevil", `abc\u202eevil`},
	} {
		if got := inert(c.in); got != c.want {
			t.Errorf("inert(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// hasTerminalControls reports whether out holds a character a terminal
// acts on, other than the newlines ending its lines.
func hasTerminalControls(out string) bool {
	return strings.ContainsFunc(out, func(r rune) bool { return r != '\n' && actsOnTerminal(r) }) ||
		strings.Contains(out, "\x9b")
}

// A Prometheus error and a condition's status that carry escape
// sequences, a carriage return and a newline print inert in rollout
// status: they can neither erase the "halted" line nor forge one.
func TestRolloutStatusPrintsClusterTextInert(t *testing.T) {
	const forged = "\x1b[1A\x1b[2K\rhalted: no\nresume: nothing to do\x07"
	data := gateData(false, `{"maxUnhealthyNodes": 1}`)
	s := halted(data, "1", map[string]string{worker0: "Ready=False" + forged + " since 12:00:00"})
	s.Health.Metrics = []nodeslov1alpha1.MetricVerdict{{Name: "error-rate", Failures: 1, At: s.Updated, Failed: true,
		Seen: "query failed: bad_data: " + forged}}
	out, err := followStatus(t, statusCluster(t, data, decided(7, &s)), false)
	expectHalted(t, err)
	if hasTerminalControls(out) {
		t.Errorf("control characters reached the terminal:\n%q", out)
	}
	for line := range strings.SplitSeq(out, "\n") {
		if strings.HasPrefix(line, "halted: no") || strings.HasPrefix(line, "resume: nothing") {
			t.Errorf("a forged line was printed: %q", line)
		}
	}
	for _, want := range []string{
		`unhealthy node worker-0: Ready=False\x1b[1A\x1b[2K\rhalted: no\nresume: nothing to do\x07 since 12:00:00`,
		`query failed: bad_data: \x1b[1A\x1b[2K\rhalted: no\n`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// A change-cause and a writer's name with escape sequences print inert in
// rollout history, the table's columns intact.
func TestHistoryPrintsChangeCauseInert(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	h := testHistory(now)
	h.Revisions[2].ChangeCause = "\x1b]0;owned\x07back\tto\r60\n4 ... Completed"
	h.Revisions[2].ChangedBy = "kubectl\x1b[8m"
	var out bytes.Buffer
	if err := h.Write(&out, now); err != nil {
		t.Fatal(err)
	}
	if hasTerminalControls(out.String()) {
		t.Errorf("control characters reached the terminal:\n%q", out.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 4 || !strings.HasSuffix(lines[3], `\x1b]0;owned\x07back\tto\r60\n4 ... Completed`) ||
		!strings.Contains(lines[3], `kubectl\x1b[8m`) {
		t.Errorf("want the header and three rows, the last ending in its change-cause made inert:\n%s", out.String())
	}

	out.Reset()
	h.Revisions[1].Data[threshold] = "{\"a\":\n\x1b[31m 1}"
	if err := h.WriteRevision(&out, h.Revisions[1]); err != nil {
		t.Fatal(err)
	}
	if hasTerminalControls(out.String()) || !strings.Contains(out.String(), `    \x1b[31m 1}`) {
		t.Errorf("a revision's data printed with control characters, or not line by line:\n%q", out.String())
	}
}
