package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestASecondInstanceIsRefusedUntilTheFirstReleases(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run-local.lock")
	first, err := acquireInstanceLock(path)
	if err != nil {
		t.Fatalf("first lock: %v", err)
	}
	_, err = acquireInstanceLock(path)
	if err == nil {
		t.Fatal("a second lock was granted while the first is held")
	}
	if want := "already running (pid " + strconv.Itoa(os.Getpid()); !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
	first.release()
	again, err := acquireInstanceLock(path)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	again.release()
}
