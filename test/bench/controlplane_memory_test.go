package main

import (
	"os"
	"testing"
)

// The control plane's memory is read as any process's: this one's will do.
func TestReadControlPlaneMemory(t *testing.T) {
	got, err := readControlPlaneMemory([]int{os.Getpid()})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("got %d processes, want 1", len(got))
	}
	m := got[0]
	if m.PID != os.Getpid() || m.Command == "" {
		t.Errorf("process %d %q, want %d with its command", m.PID, m.Command, os.Getpid())
	}
	if m.RSS <= 0 || m.PeakRSS < m.RSS {
		t.Errorf("RSS %.0f, peak %.0f: want a positive RSS no larger than the peak", m.RSS, m.PeakRSS)
	}
	if _, err := readControlPlaneMemory([]int{-1}); err == nil {
		t.Error("a process that does not exist gave no error")
	}
}
