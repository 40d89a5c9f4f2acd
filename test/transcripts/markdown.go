package transcripts

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"time"
)

// A block is one fenced code block of a page marked with a comment
// `<!-- transcript: KIND [nodes=N] [retry=DURATION] -->` on the line
// before it. KIND run-local is the output of bin/run-local up to its ready
// line; any other kind is a list of commands, each `$ ` line followed by
// its output, run in the session the page's run-local block started.
type block struct {
	page  string
	line  int // of the opening fence
	kind  string
	nodes int
	// retry: how long each command is run again until its output matches
	// (a rollout moves on by itself: the output shown is what the page
	// says one sees once the controller got there).
	retry    time.Duration
	commands []command
	// lines are the block's lines, for a run-local block.
	lines []string
}

// A command is a `$ ` line of a block and the output the page shows for it.
type command struct {
	line   int
	text   string
	output []string
}

const marker = "<!-- transcript:"

// runLocalKind is the kind of the block that starts bin/run-local.
const runLocalKind = "run-local"

// readBlocks returns the marked blocks of page, in order.
func readBlocks(page string) ([]block, error) {
	f, err := os.Open(page)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	var (
		blocks  []block
		current *block
		pending *block
		n       int
	)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n++
		text := sc.Text()
		switch {
		case current != nil && strings.HasPrefix(text, "```"):
			blocks = append(blocks, *current)
			current = nil
		case current != nil:
			current.add(n, text)
		case pending != nil && strings.HasPrefix(text, "```"):
			pending.line = n
			current, pending = pending, nil
		case pending != nil:
			return nil, fmt.Errorf("%s:%d: a transcript marker must be followed by a ``` block", page, pending.line)
		case strings.HasPrefix(text, marker):
			b, err := parseMarker(page, n, text)
			if err != nil {
				return nil, err
			}
			pending = &b
		}
	}
	if current != nil || pending != nil {
		return nil, fmt.Errorf("%s: a transcript block is not closed", page)
	}
	return blocks, sc.Err()
}

func parseMarker(page string, n int, text string) (block, error) {
	fields := strings.Fields(strings.TrimSuffix(strings.TrimPrefix(text, marker), "-->"))
	if len(fields) == 0 {
		return block{}, fmt.Errorf("%s:%d: a transcript marker names no kind", page, n)
	}
	b := block{page: page, line: n, kind: fields[0]}
	for _, f := range fields[1:] {
		key, value, _ := strings.Cut(f, "=")
		var err error
		switch key {
		case "nodes":
			_, err = fmt.Sscan(value, &b.nodes)
		case "retry":
			b.retry, err = time.ParseDuration(value)
		default:
			err = fmt.Errorf("unknown option %q (nodes=N, retry=DURATION)", key)
		}
		if err != nil {
			return block{}, fmt.Errorf("%s:%d: %s: %w", page, n, f, err)
		}
	}
	return b, nil
}

func (b *block) add(n int, text string) {
	b.lines = append(b.lines, text)
	if cmd, ok := strings.CutPrefix(text, "$ "); ok {
		b.commands = append(b.commands, command{line: n, text: cmd})
		return
	}
	if len(b.commands) > 0 {
		last := &b.commands[len(b.commands)-1]
		last.output = append(last.output, text)
	}
}
