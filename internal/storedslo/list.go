package storedslo

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// maxWholeGets is how many NodeSLOs List reads whole one by one; past it,
// one LIST of every NodeSLO whole costs the apiserver less.
const maxWholeGets = 100

// List returns what is stored for every NodeSLO, by name, as Get does for
// one: the metadata from reader (the cache, not copied: only read) and the
// spec read whole from the apiserver when withSpecs asks for every spec (a
// configuration that resolves from the stored spec) or the digest
// annotation does not vouch for it (edited by hand, or written by another
// controller). Those are read one by one while they are few, else in one
// LIST of every NodeSLO whole. A NodeSLO deleted before it could be read
// whole is left out: its node has none.
//
// The NodeSLOs the controller created whose echo the cache has not shown
// yet are listed as written (echoes.unseenCreates), at no read: a decision
// on the cache alone would take a NodeSLO created a moment ago for a node
// without one, which gets the target at once, outside the steps. An update
// not shown yet is listed as the cache has it, as before: the rollout then
// waits for the cache to show a step's writes before it counts them, and
// the NodeSLO reconciler reads past the cache until the echo (Get).
func (s *Store) List(ctx context.Context, reader client.Reader, withSpecs bool) (map[string]*NodeSLO, error) {
	list := sloconfig.NodeSLOMetadataList()
	if err := reader.List(ctx, list, client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("listing NodeSLOs: %w", err)
	}
	stored := make([]NodeSLO, len(list.Items)) // one allocation for the fleet
	byName := make(map[string]*NodeSLO, len(list.Items))
	for i := range list.Items {
		meta := &list.Items[i]
		n := &stored[i]
		*n = NodeSLO{name: meta.Name, exists: true, meta: &meta.ObjectMeta}
		byName[n.name] = n
	}
	unseen := s.echoes.unseenCreates(func(name string) bool { return byName[name] != nil })
	created := make([]*NodeSLO, 0, len(unseen)) // not cached yet
	for name, meta := range unseen {
		n := &NodeSLO{name: name, exists: true, meta: meta}
		byName[name], created = n, append(created, n)
	}
	var unvouched []string
	vouch := func(n *NodeSLO) {
		if n.digest = VouchedDigest(n.meta); n.digest == "" {
			unvouched = append(unvouched, n.name)
		}
	}
	for i := range stored {
		vouch(&stored[i])
	}
	for _, n := range created {
		vouch(n)
	}
	if withSpecs || len(unvouched) > maxWholeGets {
		return byName, s.readAllWhole(ctx, byName)
	}
	return byName, s.readWholeOneByOne(ctx, byName, unvouched)
}

// readAllWhole lists every NodeSLO whole and makes each of byName the one
// read, leaving out those deleted since.
func (s *Store) readAllWhole(ctx context.Context, byName map[string]*NodeSLO) error {
	list := &slov1alpha1.NodeSLOList{}
	if err := s.whole.List(ctx, list); err != nil {
		return fmt.Errorf("listing NodeSLOs whole: %w", err)
	}
	wholes := make(map[string]*slov1alpha1.NodeSLO, len(list.Items))
	for i := range list.Items {
		wholes[list.Items[i].Name] = &list.Items[i]
	}
	for name, n := range byName {
		if whole := wholes[name]; whole != nil {
			n.readWhole(whole)
		} else {
			delete(byName, name)
		}
	}
	return nil
}

// readWholeOneByOne reads the NodeSLOs of names whole, leaving out those
// deleted since they were listed.
func (s *Store) readWholeOneByOne(ctx context.Context, byName map[string]*NodeSLO, names []string) error {
	for _, name := range names {
		whole := &slov1alpha1.NodeSLO{}
		err := s.whole.Get(ctx, client.ObjectKey{Name: name}, whole)
		switch {
		case apierrors.IsNotFound(err):
			delete(byName, name)
		case err != nil:
			return fmt.Errorf("reading NodeSLO %s: %w", name, err)
		default:
			byName[name].readWhole(whole)
		}
	}
	return nil
}
