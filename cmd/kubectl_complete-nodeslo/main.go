// Command kubectl_complete-nodeslo completes `kubectl nodeslo ...` for
// kubectl's shell completion: kubectl runs it with the words typed after
// the plugin's name. Install it on the PATH beside kubectl-nodeslo.
package main

import (
	"fmt"
	"os"

	"github.com/nodeslo/nodeslo-controller/internal/completer"
)

func main() {
	self, err := os.Executable()
	if err != nil {
		self = os.Args[0]
	}
	plugin, err := completer.Plugin(self)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(completer.Run(plugin, os.Args[1:], os.Stdout, os.Stderr))
}
