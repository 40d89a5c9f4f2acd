// Command kubectl-nodeslo is a kubectl plugin that validates the
// slo-controller-config ConfigMap and renders the NodeSLOs it produces,
// offline. Install it on the PATH and run "kubectl nodeslo".
package main

import (
	"os"

	"github.com/nodeslo/nodeslo-controller/internal/plugin"
)

func main() {
	os.Exit(plugin.Execute(os.Args[1:], plugin.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}))
}
