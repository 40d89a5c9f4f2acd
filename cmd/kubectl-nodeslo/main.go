// Command kubectl-nodeslo is a kubectl plugin that validates the
// slo-controller-config ConfigMap and renders the NodeSLOs it produces,
// offline. Install it on the PATH and run "kubectl nodeslo".
package main

import (
	"os"
	"runtime/debug"

	"github.com/nodeslo/nodeslo-controller/internal/plugin"
)

// memoryLimit is the heap the plugin grows to before collecting garbage.
// Rendering 100,000 nodes keeps about 300 MiB of them and allocates gigabytes
// of short-lived parse trees; collecting only near this limit instead of at
// every doubling of the live heap saves about a third of the CPU time while
// staying under 1 GiB of memory. GOGC or GOMEMLIMIT in the environment win.
const memoryLimit = 640 << 20

func main() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(memoryLimit)
	}
	os.Exit(plugin.Execute(os.Args[1:], plugin.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}))
}
