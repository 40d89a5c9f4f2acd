package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// clockTicks is USER_HZ, the unit of the CPU times in /proc/stat and
// /proc/<pid>/stat; it is 100 on every Linux architecture Go supports.
const clockTicks = 100

// procStat is what the bench reads from /proc/<pid>/stat.
type procStat struct {
	// command is the executable's name (comm), at most 15 bytes of it.
	command    string
	parentPID  int
	cpuSeconds float64
}

// parseProcStat reads a process's command name, parent and user and
// system CPU time (utime and stime) from the content of /proc/<pid>/stat.
func parseProcStat(stat string) (procStat, error) {
	// The command name, in parentheses, may hold spaces and parentheses:
	// count the fields after its last closing one.
	open, end := strings.IndexByte(stat, '('), strings.LastIndexByte(stat, ')')
	if open < 0 || end < open {
		return procStat{}, fmt.Errorf("no command name in %q", stat)
	}
	fields := strings.Fields(stat[end+1:])
	// fields[0] is field 3 (state), the parent field 4; utime and stime are
	// fields 14 and 15.
	if len(fields) < 13 {
		return procStat{}, fmt.Errorf("%d fields after the command name, want at least 13", len(fields))
	}
	ppid, err := strconv.Atoi(fields[1])
	if err != nil {
		return procStat{}, fmt.Errorf("ppid: %w", err)
	}
	utime, err := strconv.ParseUint(fields[11], 10, 64)
	if err != nil {
		return procStat{}, fmt.Errorf("utime: %w", err)
	}
	stime, err := strconv.ParseUint(fields[12], 10, 64)
	if err != nil {
		return procStat{}, fmt.Errorf("stime: %w", err)
	}
	return procStat{command: stat[open+1 : end], parentPID: ppid, cpuSeconds: float64(utime+stime) / clockTicks}, nil
}

// processCPUSeconds reads the user and system CPU time of process pid.
func processCPUSeconds(pid int) (float64, error) {
	path := fmt.Sprintf("/proc/%d/stat", pid)
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	st, err := parseProcStat(string(raw))
	if err != nil {
		return 0, fmt.Errorf("reading CPU times from %s: %w", path, err)
	}
	return st.cpuSeconds, nil
}

// machineBusySeconds reads, from the content of /proc/stat, the CPU time
// all cores spent on anything but idling (user, nice, system, irq, softirq
// and steal; not idle or iowait). Guest time is already part of user and
// nice, so it is not added again.
func machineBusySeconds(stat string) (float64, error) {
	for line := range strings.Lines(stat) {
		fields := strings.Fields(line)
		if len(fields) == 0 || fields[0] != "cpu" {
			continue
		}
		// cpu user nice system idle iowait irq softirq steal [guest guest_nice]
		if len(fields) < 9 {
			return 0, fmt.Errorf("the cpu line of /proc/stat has %d fields, want at least 9", len(fields))
		}
		var busy uint64
		for _, i := range []int{1, 2, 3, 6, 7, 8} {
			v, err := strconv.ParseUint(fields[i], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("field %d of the cpu line of /proc/stat: %w", i, err)
			}
			busy += v
		}
		return float64(busy) / clockTicks, nil
	}
	return 0, fmt.Errorf("no cpu line in /proc/stat")
}

// machineCPUSeconds is the busy CPU time of the whole machine so far: the
// manager, the control plane, the bench itself and whatever else runs.
func machineCPUSeconds() (float64, error) {
	raw, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	return machineBusySeconds(string(raw))
}

// controlPlaneCommands are the processes of the bench's control plane.
var controlPlaneCommands = []string{"kube-apiserver", "etcd"}

// childrenNamed finds the processes that parent started whose command is
// one of commands: the bench's own kube-apiserver and etcd, not those of
// other runs on the same machine.
func childrenNamed(parent int, commands []string) ([]int, error) {
	paths, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, path := range paths {
		raw, err := os.ReadFile(path)
		if err != nil {
			continue // the process ended meanwhile
		}
		st, err := parseProcStat(string(raw))
		if err != nil || st.parentPID != parent || !slices.Contains(commands, st.command) {
			continue
		}
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(path)))
		if err != nil {
			continue
		}
		pids = append(pids, pid)
	}
	if len(pids) != len(commands) {
		return nil, fmt.Errorf("found %d of the processes %s started by process %d", len(pids),
			strings.Join(commands, " and "), parent)
	}
	return pids, nil
}

// cpuSample is the CPU time spent so far by the whole machine and by the
// control plane (kube-apiserver and etcd together).
type cpuSample struct {
	machine, controlPlane float64
}

// since is the CPU time spent between earlier and s.
func (s cpuSample) since(earlier cpuSample) cpuSample {
	return cpuSample{machine: s.machine - earlier.machine, controlPlane: s.controlPlane - earlier.controlPlane}
}

// sampleCPU reads the machine's and the control plane's (controlPlane:
// its processes) CPU time.
func sampleCPU(controlPlane []int) (cpuSample, error) {
	machine, err := machineCPUSeconds()
	if err != nil {
		return cpuSample{}, err
	}
	s := cpuSample{machine: machine}
	for _, pid := range controlPlane {
		cpu, err := processCPUSeconds(pid)
		if err != nil {
			return cpuSample{}, fmt.Errorf("the control plane's CPU time: %w", err)
		}
		s.controlPlane += cpu
	}
	return s, nil
}
