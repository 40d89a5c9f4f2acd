package main

import (
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The parent is field 4, utime and stime are fields 14 and 15, counted after
// a command name that may hold spaces and parentheses.
func TestParseProcStat(t *testing.T) {
	const stat = "4242 (my (odd) manager) S 77 4242 4242 0 -1 4194560 1234 0 0 0 " +
		"1250 375 0 0 20 0 12 0 98765 1000000 2500 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0"
	got, err := parseProcStat(stat)
	if err != nil {
		t.Fatal(err)
	}
	if want := (procStat{command: "my (odd) manager", parentPID: 77, cpuSeconds: 16.25}); got != want {
		t.Errorf("parseProcStat = %+v, want %+v (1250+375 ticks at 100 a second)", got, want)
	}
}

func TestParseProcStatRefusesWhatIsNotAStatLine(t *testing.T) {
	for name, stat := range map[string]string{
		"no command name": "4242 manager S 1 2 3",
		"too few fields":  "4242 (manager) S 1 4242 4242 0 -1 4194560 1234 0 0 0 1250",
		"ppid not a number": "4242 (manager) S x 4242 4242 0 -1 4194560 1234 0 0 0 " +
			"1250 375 0 0 20 0",
		"utime not a number": "4242 (manager) S 1 4242 4242 0 -1 4194560 1234 0 0 0 " +
			"x 375 0 0 20 0",
	} {
		if _, err := parseProcStat(stat); err == nil {
			t.Errorf("%s: no error for %q", name, stat)
		}
	}
}

// Busy time is user, nice, system, irq, softirq and steal of the machine-wide
// line; idle, iowait and the guest columns (already in user and nice) are not.
func TestMachineBusySeconds(t *testing.T) {
	const stat = "cpu  1000 200 300 9000 400 10 20 30 500 60\n" +
		"cpu0 500 100 150 4500 200 5 10 15 250 30\n" +
		"cpu1 500 100 150 4500 200 5 10 15 250 30\n" +
		"intr 12345\nctxt 67890\n"
	got, err := machineBusySeconds(stat)
	if err != nil {
		t.Fatal(err)
	}
	if want := 15.60; math.Abs(got-want) > 1e-9 {
		t.Errorf("machineBusySeconds = %v, want %v", got, want)
	}
}

func TestMachineBusySecondsRefusesWhatIsNotProcStat(t *testing.T) {
	for name, stat := range map[string]string{
		"no cpu line":      "cpu0 1 2 3 4 5 6 7 8\nintr 1\n",
		"short cpu line":   "cpu  1 2 3 4\n",
		"not a number":     "cpu  1 2 x 4 5 6 7 8\n",
		"negative counter": "cpu  1 2 -3 4 5 6 7 8\n",
	} {
		_, err := machineBusySeconds(stat)
		if err == nil {
			t.Errorf("%s: no error for %q", name, stat)
		} else if !strings.Contains(err.Error(), "cpu") {
			t.Errorf("%s: the error does not say where: %v", name, err)
		}
	}
}

// This machine's own counters parse and only grow, and a child is found by
// its parent and command.
func TestCPUOfThisMachine(t *testing.T) {
	first, err := sampleCPU([]int{os.Getpid()})
	if err != nil {
		t.Fatal(err)
	}
	sleep := exec.Command("sleep", "30")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sleep.Process.Kill(); _ = sleep.Wait() })
	pids, err := childrenNamed(os.Getpid(), []string{"sleep"})
	if err != nil || len(pids) != 1 || pids[0] != sleep.Process.Pid {
		t.Errorf("children named sleep: %v, %v; want [%d]", pids, err, sleep.Process.Pid)
	}
	if _, err := childrenNamed(os.Getpid(), []string{"sleep", "etcd"}); err == nil ||
		!strings.Contains(err.Error(), "found 1 of the processes sleep and etcd") {
		t.Errorf("a missing child: %v", err)
	}
	second, err := sampleCPU([]int{os.Getpid()})
	if err != nil {
		t.Fatal(err)
	}
	spent := second.since(first)
	if first.machine <= 0 || spent.machine < 0 || spent.controlPlane < 0 {
		t.Errorf("CPU %+v then %+v", first, second)
	}
}
