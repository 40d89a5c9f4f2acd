package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// clockTicks is USER_HZ, the unit of the CPU times in /proc/stat and
// /proc/<pid>/stat; it is 100 on every Linux architecture Go supports.
const clockTicks = 100

// processCPUSeconds reads the user and system CPU time (utime and stime)
// from the content of /proc/<pid>/stat.
func processCPUSeconds(stat string) (float64, error) {
	// The command name, in parentheses, may hold spaces and parentheses:
	// count the fields after its last closing one.
	end := strings.LastIndexByte(stat, ')')
	if end < 0 {
		return 0, fmt.Errorf("no command name in %q", stat)
	}
	fields := strings.Fields(stat[end+1:])
	// fields[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(fields) < 13 {
		return 0, fmt.Errorf("%d fields after the command name, want at least 13", len(fields))
	}
	utime, err := strconv.ParseUint(fields[11], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("utime: %w", err)
	}
	stime, err := strconv.ParseUint(fields[12], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("stime: %w", err)
	}
	return float64(utime+stime) / clockTicks, nil
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
