package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// processMemory is one control-plane process's memory at the end of a run,
// from /proc/<pid>/status: its resident set then (VmRSS) and the most it
// ever held (VmHWM), which at 50,000 nodes says what the machine must have.
type processMemory struct {
	Command string  `json:"command"`
	RSS     float64 `json:"rss_bytes"`
	PeakRSS float64 `json:"peak_rss_bytes"`
	PID     int     `json:"pid"`
}

// readControlPlaneMemory reads the memory of each of pids.
func readControlPlaneMemory(pids []int) ([]processMemory, error) {
	out := make([]processMemory, 0, len(pids))
	for _, pid := range pids {
		m, err := readProcessMemory(pid)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

func readProcessMemory(pid int) (processMemory, error) {
	m := processMemory{PID: pid}
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		return m, err
	}
	m.Command = strings.TrimSpace(string(comm))
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return m, err
	}
	found := 0
	for line := range strings.Lines(string(raw)) {
		for field, into := range map[string]*float64{"VmRSS:": &m.RSS, "VmHWM:": &m.PeakRSS} {
			rest, ok := strings.CutPrefix(line, field)
			if !ok {
				continue
			}
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				return m, fmt.Errorf("reading %s of /proc/%d/status: %w", field, pid, err)
			}
			*into = kb * 1024
			found++
		}
	}
	if found != 2 {
		return m, fmt.Errorf("no VmRSS or VmHWM in /proc/%d/status", pid)
	}
	return m, nil
}
