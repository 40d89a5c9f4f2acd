package plugin

import (
	"flag"

	"github.com/spf13/pflag"
	"k8s.io/klog/v2"
)

// klogFlags are the flags of klog, client-go's log, that kubectl has:
// -v/--v, the verbosity, and --vmodule, the verbosity per source file.
// client-go logs every request the plugin sends at -v=6 (method, URL,
// status, time), with its headers at -v=7 and its body at -v=8, on
// stderr, as kubectl does (docs/kubectl-nodeslo.md#global-flags).
var klogFlags = []string{"v", "vmodule"}

// addVerbosityFlags binds klogFlags on flags, the root's persistent flags.
// klog keeps the verbosity in process-wide state, as kubectl's does: the
// flags set it, whichever command parses them.
func addVerbosityFlags(flags *pflag.FlagSet) {
	goFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(goFlags)
	for _, name := range klogFlags {
		// pflag gives a one-letter Go flag its shorthand: -v and --v.
		flags.AddFlag(pflag.PFlagFromGoFlag(goFlags.Lookup(name)))
	}
}
