//go:build transcripts

package transcripts

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// root is the repository's top directory: go test runs a package's tests in
// its directory (a path from runtime.Caller would not do: make builds with
// -trimpath).
var root = func() string {
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		panic(err)
	}
	return dir
}()

// readyTimeout bounds bin/run-local's start: the control plane, the CRD,
// the samples and every NodeSLO written.
const readyTimeout = 3 * time.Minute

// commandTimeout bounds one run of a command (a waiting one too).
const commandTimeout = 2 * time.Minute

func TestReadme(t *testing.T) { runPage(t, pages[0]) }

func TestRolloutWalkthrough(t *testing.T) { runPage(t, pages[1]) }

// runPage starts the session the page's run-local block asks for, compares
// bin/run-local's output with that block, then runs every command of the
// page's other blocks in order and compares each output with the page's.
func runPage(t *testing.T, page string) {
	blocks, err := readBlocks(filepath.Join(root, page))
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) < 2 || blocks[0].kind != runLocalKind {
		t.Fatalf("%s: want a `<!-- transcript: run-local -->` block first and command blocks after it, got %d blocks",
			page, len(blocks))
	}
	s, err := startSession(root, blocks[0].nodes, readyTimeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.stop)

	startup := blocks[0]
	if want := startup.lines[1:]; !matches(want, s.startupLines()) {
		t.Errorf("%s:%d: `%s` printed, up to its ready line:\n%s\nthe page shows:\n%s", page, startup.line,
			strings.TrimPrefix(startup.lines[0], "$ "), strings.Join(s.startupLines(), "\n"), strings.Join(want, "\n"))
	}
	commands := 0
	for _, b := range blocks[1:] {
		if b.kind == runLocalKind {
			t.Fatalf("%s:%d: one run-local block a page", page, b.line)
		}
		for _, c := range b.commands {
			commands++
			got := runUntilMatch(s, c, b.retry)
			if !matches(c.output, got) {
				t.Errorf("%s:%d: `%s` printed:\n%s\nthe page shows:\n%s", page, c.line, c.text,
					strings.Join(got, "\n"), strings.Join(c.output, "\n"))
			}
		}
	}
	if commands == 0 {
		t.Errorf("%s: no command after the run-local block", page)
	}
	t.Logf("%s: %d commands of %d blocks ran and compared", page, commands, len(blocks)-1)
}

// runUntilMatch runs the command until its output matches the page's, once
// a second for up to retry (a command that waits for a rollout to get
// there), and returns the last output.
func runUntilMatch(s *session, c command, retry time.Duration) []string {
	var got []string
	_ = wait.PollUntilContextTimeout(context.Background(), time.Second, retry, true,
		func(context.Context) (bool, error) {
			ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
			defer cancel()
			got = s.run(ctx, c.text)
			return matches(c.output, got), nil
		})
	return got
}
