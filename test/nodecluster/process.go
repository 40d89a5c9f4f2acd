package nodecluster

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// process is one component, started in a process group of its own with its
// output in logs/<name>.log and its PID in pids/<name>.pid.
type process struct {
	name    string
	cmd     *exec.Cmd
	pidFile string
	exited  chan struct{}
	err     error
}

func startProcess(l Layout, name, binary string, args ...string) (*process, error) {
	return startProcessWithEnv(l, name, binary, nil, args...)
}

// startProcessWithEnv is startProcess with env added to this program's
// environment.
func startProcessWithEnv(l Layout, name, binary string, env []string, args ...string) (*process, error) {
	for _, dir := range []string{l.LogDir(), l.PIDDir()} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	logFile, err := os.OpenFile(filepath.Join(l.LogDir(), name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer func() { _ = logFile.Close() }()
	cmd := exec.Command(binary, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Its own group, so that Stop reaches what it forks; SIGKILL if this
	// program dies, so that no component outlives it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, pidFile: filepath.Join(l.PIDDir(), name+".pid"), exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	record := fmt.Sprintf("%d %s\n", cmd.Process.Pid, cmd.Path)
	if err := os.WriteFile(p.pidFile, []byte(record), 0o644); err != nil {
		p.stop(time.Second)
		return nil, err
	}
	return p, nil
}

func (p *process) pid() int { return p.cmd.Process.Pid }

// running reports whether the process has not ended yet.
func (p *process) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// exitError says how an ended process ended.
func (p *process) exitError() error {
	<-p.exited
	if p.err == nil {
		return fmt.Errorf("%s exited", p.name)
	}
	return fmt.Errorf("%s: %w", p.name, p.err)
}

// stop sends SIGTERM to the process group, SIGKILL after grace, and returns
// once the process has ended.
func (p *process) stop(grace time.Duration) {
	if p == nil {
		return
	}
	defer func() { _ = os.Remove(p.pidFile) }()
	if !p.running() {
		return // its PID may be another process's by now
	}
	pgid := p.pid()
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(grace):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.exited
	}
}

// stopRecorded stops the processes a previous run recorded in pids/ and
// left running (it crashed, or was killed): each one by its PID, and only if
// that PID still runs the recorded binary.
func stopRecorded(l Layout, grace time.Duration) error {
	entries, err := os.ReadDir(l.PIDDir())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		file := filepath.Join(l.PIDDir(), e.Name())
		data, err := os.ReadFile(file)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		fields := strings.Fields(string(data))
		if len(fields) == 2 {
			if pid, err := strconv.Atoi(fields[0]); err == nil && runs(pid, fields[1]) {
				killPID(pid, fields[1], grace)
			}
		}
		errs = append(errs, os.Remove(file))
	}
	return errors.Join(errs...)
}

// runs reports whether process pid runs binary.
func runs(pid int, binary string) bool {
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	return err == nil && strings.TrimSuffix(exe, " (deleted)") == binary
}

// killPID sends SIGTERM to pid, then SIGKILL if it still runs binary after
// grace.
func killPID(pid int, binary string, grace time.Duration) {
	_ = syscall.Kill(pid, syscall.SIGTERM)
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if !runs(pid, binary) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
}
