package plugin

import (
	"fmt"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/labels"
)

// addSelectorFlag binds kubectl's -l/--selector, which chooses nodes by label.
func addSelectorFlag(flags *pflag.FlagSet, selector *string) {
	flags.StringVarP(selector, "selector", "l", "",
		"Selector (label query) of the nodes, as kubectl's: supports '=', '==', '!=', 'in', 'notin', and bare keys.")
}

// parseSelector reads -l: nil when empty, an error naming the flag when it
// does not parse.
func parseSelector(selector string) (labels.Selector, error) {
	if selector == "" {
		return nil, nil
	}
	sel, err := labels.Parse(selector)
	if err != nil {
		return nil, fmt.Errorf("-l/--selector %q: %w", clip(selector), err)
	}
	return sel, nil
}
