package main

import (
	"flag"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/nodeslo/nodeslo-controller/internal/manager"
	"github.com/nodeslo/nodeslo-controller/test/flagtable"
)

var root = ".."

// helpFlag matches a flag's first line in Go's flag usage: "  -name type".
var helpFlag = regexp.MustCompile(`^  -([a-z0-9-]+)`)

// helpDefault matches the default Go's flag package prints, at the end of a
// flag's usage text; it prints none for a zero value.
var helpDefault = regexp.MustCompile(`\(default (.*)\)$`)

// zeroDefaults are the table's ways of writing a default --help does not
// print.
var zeroDefaults = map[string]bool{"false": true, "0": true, `""`: true}

// managerHelp returns the flags bin/manager --help lists, with the defaults
// it prints ("" where it prints none). --help is Go's flag usage: a header
// line, then PrintDefaults of the command line, which holds bindFlags' flags
// and controller-runtime's --kubeconfig (here also the test binary's own
// test.* flags, left out).
func managerHelp(t *testing.T) map[string]string {
	t.Helper()
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	opts := manager.DefaultOptions()
	bindFlags(fs, &opts, &zap.Options{})
	flag.CommandLine.VisitAll(func(f *flag.Flag) {
		if !strings.HasPrefix(f.Name, "test.") && fs.Lookup(f.Name) == nil {
			fs.Var(f.Value, f.Name, f.Usage)
		}
	})
	var usage strings.Builder
	fs.SetOutput(&usage)
	fs.PrintDefaults()

	listed := map[string]string{}
	name := ""
	for line := range strings.SplitSeq(usage.String(), "\n") {
		if m := helpFlag.FindStringSubmatch(line); m != nil {
			name = "--" + m[1]
			listed[name] = ""
			line = strings.TrimPrefix(line, m[0])
		}
		if m := helpDefault.FindStringSubmatch(strings.TrimSpace(line)); m != nil && name != "" {
			def := m[1]
			if unquoted, err := strconv.Unquote(def); err == nil {
				def = unquoted // a string flag's default is printed quoted
			}
			listed[name] = def
		}
	}
	if listed["--kubeconfig"] != "" || len(listed) < 10 {
		t.Fatalf("unexpected usage (no --kubeconfig, or too few flags):\n%s", usage.String())
	}
	if _, ok := listed["--kubeconfig"]; !ok {
		t.Fatalf("controller-runtime's --kubeconfig is not on the command line:\n%s", usage.String())
	}
	return listed
}

// TestFlagTableMatchesManagerHelp holds the documented table to the binary:
// the same flags, and the same defaults.
func TestFlagTableMatchesManagerHelp(t *testing.T) {
	rows, err := flagtable.ReadTable(root)
	if err != nil {
		t.Fatal(err)
	}
	help := managerHelp(t)
	documented := map[string]bool{}
	for _, row := range rows {
		documented[row.Name] = true
		def, ok := help[row.Name]
		switch {
		case !ok:
			t.Errorf("%s documents %s, which bin/manager --help does not list", flagtable.Page, row.Name)
		case def == "" && !zeroDefaults[row.Default]:
			t.Errorf("%s: %s has default `%s`, but --help prints none (a zero value: write `false`, `0` or `\"\"`)",
				flagtable.Page, row.Name, row.Default)
		case def != "" && def != row.Default:
			t.Errorf("%s: %s has default `%s`, --help says %s", flagtable.Page, row.Name, row.Default, def)
		}
	}
	for name := range help {
		if !documented[name] {
			t.Errorf("bin/manager --help lists %s (default %q), which the flag table of %s lacks",
				name, help[name], flagtable.Page)
		}
	}
}
