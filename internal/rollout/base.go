package rollout

import "github.com/nodeslo/nodeslo-controller/internal/sloconfig"

// The configuration in force for a held node (docs/rollout.md#behaviour):
// the one its NodeSLO was last written from, or a newer one the node was
// never pending for. It must survive a restart of the manager, so it is
// found from what is stored: the NodeSLO's configuration annotation
// (Observed.From, and Observed.Under, the revision in force at the write)
// and the revision history's numbers. The spec alone cannot tell it: two
// configurations may resolve alike for the node's labels now and
// differently for the labels it gets next (simulator seed 2290). Revision
// numbers, not times, order the write and the configurations: the
// apiserver's clock and the manager's need not agree.

// baseOf is the configuration in force for o among before (newest first),
// numbers having the number of each one's newest revision:
//   - the newest that resolves to its stored NodeSLO among the one it was
//     written from and those put in force after that write: the node did
//     not differ from those, so none of them held it back. One in force at
//     or before the write, other than the one written, held the node then
//     or was replaced, and is passed over;
//   - else the one it was written from: its labels changed, or its
//     NodeSLO was edited by hand, since;
//   - for a NodeSLO that does not name its configuration (written by an
//     earlier version), the newest that resolves to it;
//   - nil when none is known: the node then keeps its NodeSLO as it is.
func baseOf(o Observed, before []*sloconfig.Config, numbers map[string]int64, dropped []string) *sloconfig.Config {
	var written *sloconfig.Config
	for _, cfg := range before {
		from := o.From != "" && ShortTarget(cfg.Fingerprint()) == o.From
		if o.From != "" && !from && !cameAfter(numbers, cfg, o.Under) {
			continue
		}
		if !o.differs(cfg, dropped) {
			return cfg
		}
		if from {
			written = cfg
		}
	}
	return written
}

// cameAfter reports whether cfg was put in force after a write made under
// the revision numbered under (0: not known, and nothing counts as after).
func cameAfter(numbers map[string]int64, cfg *sloconfig.Config, under int64) bool {
	n, ok := numbers[cfg.Fingerprint()]
	return ok && under > 0 && n > under
}
