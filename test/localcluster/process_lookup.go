package localcluster

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
)

// findProcess returns the pid of a running process named name (its
// argv[0]'s base) whose arguments ours accepts (0: none). Other control
// planes on the machine (other suites, other users) run processes of the
// same names: the arguments tell this cluster's own.
func findProcess(name string, ours func(args [][]byte) bool) (int, error) {
	cmdlines, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		return 0, err
	}
	for _, path := range cmdlines {
		raw, err := os.ReadFile(path)
		if err != nil {
			continue // the process ended meanwhile
		}
		args := bytes.Split(raw, []byte{0})
		if filepath.Base(string(args[0])) != name || !ours(args[1:]) {
			continue
		}
		return strconv.Atoi(filepath.Base(filepath.Dir(path)))
	}
	return 0, nil
}
