//go:build transcripts

package transcripts

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nodeslo/nodeslo-controller/test/localcluster"
)

// A session is one bin/run-local, as `make run-local` starts it, and a
// working directory laid out like the repository's for the commands of the
// page: bin/ holds kubectl, kubectl-nodeslo and run-local's bin/local, the
// rest of the repository is linked, and files the commands write stay there.
type session struct {
	root, work string
	runLocal   *localcluster.Process
	mu         sync.Mutex
	output     []string
	ready      chan struct{}
	readyOnce  sync.Once
	// exports are the page's `export` lines so far, run before each command.
	exports []string
}

// readyLine is the line bin/run-local prints once every Node has its NodeSLO.
const readyLine = "[run-local] ready in "

// startSession starts bin/run-local with nodes extra Nodes and waits until it
// is ready.
func startSession(root string, nodes int, timeout time.Duration) (*session, error) {
	work, err := os.MkdirTemp("", "transcripts-")
	if err != nil {
		return nil, err
	}
	s := &session{root: root, work: work, ready: make(chan struct{})}
	if err := s.layOut(); err != nil {
		return nil, err
	}
	cmd := exec.Command(filepath.Join(root, "bin", "run-local"), "--dir", filepath.Join(work, "bin", "local"),
		fmt.Sprintf("--nodes=%d", nodes))
	cmd.Dir = root
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	go s.collect(pr)
	if s.runLocal, err = localcluster.StartProcess(cmd); err != nil {
		return nil, err
	}
	select {
	case <-s.ready:
		return s, nil
	case <-s.runLocal.Exited():
		return nil, fmt.Errorf("bin/run-local exited before it was ready: %v\n%s", s.runLocal.Err(), s.log())
	case <-time.After(timeout):
		s.stop()
		return nil, fmt.Errorf("bin/run-local not ready in %s:\n%s", timeout, s.log())
	}
}

// layOut makes the working directory: the repository's top-level entries
// linked, bin/ with the two binaries the README puts on PATH.
func (s *session) layOut() error {
	entries, err := os.ReadDir(s.root)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() == "bin" {
			continue
		}
		if err := os.Symlink(filepath.Join(s.root, e.Name()), filepath.Join(s.work, e.Name())); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Join(s.work, "bin", "local"), 0o755); err != nil {
		return err
	}
	for _, name := range []string{"kubectl", "kubectl-nodeslo"} {
		path := filepath.Join(s.root, "bin", name)
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("%w: make test-docs builds it (make kubectl, make build)", err)
		}
		if err := os.Symlink(path, filepath.Join(s.work, "bin", name)); err != nil {
			return err
		}
	}
	return nil
}

func (s *session) collect(r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		s.mu.Lock()
		s.output = append(s.output, sc.Text())
		s.mu.Unlock()
		if strings.HasPrefix(sc.Text(), readyLine) {
			s.readyOnce.Do(func() { close(s.ready) })
		}
	}
}

// log is bin/run-local's output so far.
func (s *session) log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.output, "\n")
}

// startupLines are bin/run-local's lines up to its ready line, with the
// working directory's path left out: run-local's --dir is there, where
// `make run-local` has bin/local.
func (s *session) startupLines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var lines []string
	for _, l := range s.output {
		lines = append(lines, strings.ReplaceAll(l, s.work+"/", ""))
		if strings.HasPrefix(l, readyLine) {
			break
		}
	}
	return lines
}

// run runs one command of the page in the working directory, with bash,
// after the page's exports, and returns its output (stdout and stderr).
func (s *session) run(ctx context.Context, text string) []string {
	script := strings.Join(append(append([]string(nil), s.exports...), text), "\n")
	if strings.HasPrefix(text, "export ") {
		s.exports = append(s.exports, text)
	}
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = s.work
	// The page's PATH=$PWD/bin:$PATH must be what finds kubectl: the
	// commands start from a PATH without the repository's bin/.
	cmd.Env = append(os.Environ(), "HOME="+s.work, "KUBECONFIG=/nonexistent/set-by-the-page")
	out, _ := cmd.CombinedOutput()
	text = strings.TrimRight(string(out), "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

// stop stops bin/run-local (as Ctrl-C does) and removes the working directory.
func (s *session) stop() {
	if s.runLocal != nil {
		s.runLocal.Stop(30 * time.Second)
	}
	_ = os.RemoveAll(s.work)
}
