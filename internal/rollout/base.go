package rollout

import (
	"time"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// The configuration in force for a held node (docs/rollout.md#behaviour):
// the one its NodeSLO was last written from, or a newer one the node was
// never pending for. It must survive a restart of the manager, so it is
// found from what is stored: the NodeSLO's configuration annotation
// (Observed.From), its spec-written-at annotation (Observed.WrittenAt) and
// when each configuration came in force (its revision's creation). The
// spec alone cannot tell it: two configurations may resolve alike for the
// node's labels now and differently for the labels it gets next (simulator
// seed 2290).

// baseOf is the configuration in force for o among before (newest first),
// since having when each came in force (absent: not known):
//   - the newest that resolves to its stored NodeSLO among the one it was
//     written from and those in force only after that write: the node did
//     not differ from those, so none of them held it back. One in force
//     at the write, other than the one written, held the node then (it
//     was written with its base), and is passed over;
//   - else the one it was written from: its labels changed, or its
//     NodeSLO was edited by hand, since;
//   - for a NodeSLO that does not name its configuration (written by an
//     earlier version), the newest that resolves to it;
//   - nil when none is known: the node then keeps its NodeSLO as it is.
func baseOf(o Observed, before []*sloconfig.Config, since map[string]time.Time, dropped []string) *sloconfig.Config {
	var written *sloconfig.Config
	for _, cfg := range before {
		from := o.From != "" && ShortTarget(cfg.Fingerprint()) == o.From
		if o.From != "" && !from && !cameAfter(since, cfg, o.WrittenAt) {
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

// cameAfter reports whether cfg came in force after the write at
// writtenAt. A revision's creation is kept in seconds, the write's stamp in
// milliseconds: a configuration put in force in the second of the write
// counts as before it, which can only pass over a configuration the node
// was not pending for, never take one that held it.
func cameAfter(since map[string]time.Time, cfg *sloconfig.Config, writtenAt time.Time) bool {
	at, ok := since[cfg.Fingerprint()]
	return ok && !writtenAt.IsZero() && at.After(writtenAt)
}
