package plugin

import (
	"strings"

	"github.com/spf13/cobra"
)

// commandIndex lists every command under root, subcommands of subcommands
// included, one a line with its Short: cobra's "Available Commands" shows
// only the root's children, and `kubectl nodeslo --help` is where a person
// looks for `rollout undo`. Built from the tree, it cannot leave one out.
func commandIndex(root *cobra.Command) string {
	type entry struct{ path, short string }
	var entries []entry
	var walk func(cmd *cobra.Command, prefix string)
	walk = func(cmd *cobra.Command, prefix string) {
		for _, c := range cmd.Commands() {
			if !c.IsAvailableCommand() {
				continue
			}
			path := strings.TrimSpace(prefix + " " + c.Name())
			if c.Runnable() {
				entries = append(entries, entry{path, c.Short})
			}
			walk(c, path)
		}
	}
	walk(root, "")
	width := 0
	for _, e := range entries {
		width = max(width, len(e.path))
	}
	var b strings.Builder
	for _, e := range entries {
		b.WriteString("  " + e.path + strings.Repeat(" ", width-len(e.path)+3) + e.short + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}
