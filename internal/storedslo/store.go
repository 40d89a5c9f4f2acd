package storedslo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// ErrGone: the NodeSLO the cache holds was deleted before it could be read
// whole; a retry that reads the apiserver creates it.
var ErrGone = errors.New("the NodeSLO was deleted while being read")

// Store reads, writes and deletes NodeSLOs for the NodeSLO reconciler.
// It is safe for concurrent use by the reconciler's workers and holds no
// lock across a request.
type Store struct {
	// whole reads NodeSLOs whole past the cache; deleter deletes them.
	whole   client.Reader
	deleter client.Writer
	send    writer
	echoes  *echoes
	clock   clock.PassiveClock
}

// New returns a Store that reads whole NodeSLOs through whole, deletes
// through deleter, writes through send (NewRESTWriter, or ClientWriter for
// a fake client) and stamps writes with the time of clk.
func New(whole client.Reader, deleter client.Writer, send writer, clk clock.PassiveClock) *Store {
	return &Store{whole: whole, deleter: deleter, send: send, echoes: newEchoes(), clock: clk}
}

// NodeSLO is what the controller knows of one node's stored NodeSLO.
type NodeSLO struct {
	name   string
	exists bool
	// meta is the stored NodeSLO's metadata (empty when there is none); it
	// may be the cache's, so it is only read.
	meta *metav1.ObjectMeta
	// digest is the digest the SpecDigestAnnotation vouches for ("": none).
	digest string
	// spec is the stored spec, when it was read whole (nil: not read).
	spec *slov1alpha1.NodeSLOSpec
}

// Name is the node's (and its NodeSLO's) name.
func (n *NodeSLO) Name() string { return n.name }

// Exists reports whether the node has a NodeSLO.
func (n *NodeSLO) Exists() bool { return n.exists }

// Spec is the stored spec when it was read whole, else nil.
func (n *NodeSLO) Spec() *slov1alpha1.NodeSLOSpec { return n.spec }

// Digest is the digest the stored NodeSLO's SpecDigestAnnotation vouches
// for ("": none, or no NodeSLO).
func (n *NodeSLO) Digest() string { return n.digest }

// From is the configuration the stored spec was last written from and the
// revision in force then, by its ConfigurationAnnotation ("", 0: none, or
// no NodeSLO).
func (n *NodeSLO) From() (from string, under int64) {
	return ParseConfiguration(n.meta.Annotations[ConfigurationAnnotation])
}

// WrittenAt is when this controller last wrote the stored spec, by its
// SpecWrittenAnnotation (zero: unknown, or no NodeSLO).
func (n *NodeSLO) WrittenAt() time.Time { return ParseWrittenAt(n.meta.Annotations) }

// readWhole makes what is known of n the NodeSLO read whole.
func (n *NodeSLO) readWhole(whole *slov1alpha1.NodeSLO) {
	n.meta, n.spec, n.digest = &whole.ObjectMeta, &whole.Spec, VouchedDigest(whole)
}

// Holds reports whether the node has a NodeSLO that already holds want.
func (n *NodeSLO) Holds(want sloconfig.StoredForm) bool {
	return n.exists && want.HeldBy(n.digest, n.spec)
}

// Get returns what is stored for the node name: its metadata from reader
// (the cache, or the apiserver after a write race) and, when the digest
// annotation does not vouch for its spec or withSpec asks for it (a
// configuration that resolves from the stored spec), the whole NodeSLO
// read from the apiserver.
func (s *Store) Get(ctx context.Context, reader client.Reader, name string, withSpec bool) (*NodeSLO, error) {
	meta := sloconfig.NodeSLOMetadata()
	if err := reader.Get(ctx, client.ObjectKey{Name: name}, meta); err != nil {
		if apierrors.IsNotFound(err) {
			return &NodeSLO{name: name, meta: &metav1.ObjectMeta{}}, nil
		}
		return nil, fmt.Errorf("reading NodeSLO: %w", err)
	}
	n := &NodeSLO{name: name, exists: true, meta: &meta.ObjectMeta, digest: VouchedDigest(meta)}
	if n.digest != "" && !withSpec && !s.echoes.notYetSeen(name, meta.ResourceVersion) {
		return n, nil
	}
	// Read whole from the apiserver: the spec is asked for, the annotation
	// vouches for none, or the reader has not seen the controller's own
	// last write yet. Deciding on such a stale read would leave the node
	// as that write left it: the write's echo is dropped (NotEcho), so no
	// later event would bring the node back (a held node relabelled again
	// within a moment of its write kept the spec written for its old labels).
	whole := &slov1alpha1.NodeSLO{}
	if err := s.whole.Get(ctx, client.ObjectKey{Name: name}, whole); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, ErrGone
		}
		return nil, fmt.Errorf("reading NodeSLO: %w", err)
	}
	n.readWhole(whole)
	return n, nil
}

// Write creates n, or updates it over the version read (a newer one makes
// the write conflict), with spec, whose stored form is want, resolved from
// the configuration from names (FormatConfiguration), as decided at decided
// (the configuration's decision the write carries out). The write
// stamps the digest of want with the generation it gives the NodeSLO:
// 1 for a create, one more than now for an update, since a write is only
// made when the spec changes (the apiserver moves the generation exactly
// then); when the spec was read whole and equals want (only the annotation
// was missing), the generation stays. A wrong guess costs nothing but a
// GET: the annotation then vouches for nothing.
func (s *Store) Write(
	ctx context.Context, n *NodeSLO, spec *slov1alpha1.NodeSLOSpec, want sloconfig.StoredForm, from string,
	decided time.Time,
) error {
	generation := n.meta.Generation + 1
	if !n.exists {
		generation = 1
	} else if n.spec != nil && sloconfig.SpecEqual(n.spec, want.Spec) {
		generation = n.meta.Generation
	}
	// Only encoded: nothing writes into the metadata read or the Config's spec.
	obj := &slov1alpha1.NodeSLO{ObjectMeta: *n.meta, Spec: *spec}
	obj.Name = n.name
	s.stamp(&obj.ObjectMeta, generation, want.Digest, from, decided)
	sent := obj.ObjectMeta
	sent.Generation = generation
	s.echoes.writing(&sent)
	send, verb := s.send.update, "updating"
	if !n.exists {
		send, verb = s.send.create, "creating"
	}
	stored, err := send(ctx, obj)
	if err != nil {
		s.echoes.forget(n.name)
		return fmt.Errorf("%s NodeSLO: %w", verb, err)
	}
	s.echoes.wrote(n.name, stored)
	log := logf.FromContext(ctx)
	if !n.exists {
		log.Info("Created NodeSLO")
		return nil
	}
	log.Info("Updated NodeSLO", "generation", stored.Generation)
	if stored.Generation != generation {
		s.restamp(ctx, obj, stored, want.Digest)
	}
	return nil
}

// restamp fixes the digest annotation of a write whose generation was not
// the one guessed: the apiserver stored what was sent, but it normalised
// to the spec stored before, so the generation did not move. Left alone,
// the annotation would name a generation ahead, which a hand edit of the
// spec would then reach, and it would vouch for a spec never sent. The
// engine resolves what the apiserver stores (the CRD's schema defaults
// included), so this is rare. A failed restamp is only logged: the
// annotation vouches for nothing meanwhile, and the next decision reads
// the NodeSLO whole.
func (s *Store) restamp(ctx context.Context, obj *slov1alpha1.NodeSLO, stored *metav1.ObjectMeta, digest string) {
	log := logf.FromContext(ctx)
	log.V(1).Info("NodeSLO stored at another generation than its digest names; stamping it again",
		"generation", stored.Generation)
	annotations := maps.Clone(obj.Annotations)
	annotations[SpecDigestAnnotation] = FormatSpecDigest(stored.Generation, digest)
	obj.Annotations, obj.ResourceVersion = annotations, stored.ResourceVersion
	sent := obj.ObjectMeta
	sent.Generation = stored.Generation
	s.echoes.writing(&sent)
	again, err := s.send.update(ctx, obj)
	if err != nil {
		s.echoes.forget(obj.Name)
		log.Info("Cannot stamp the NodeSLO's digest again; it is read whole next time", "error", err.Error())
		return
	}
	s.echoes.wrote(obj.Name, again)
}

// Delete deletes n, the NodeSLO of a node that is gone, and reports
// whether there was one. The UID precondition keeps a NodeSLO recreated
// meanwhile (for a new node of the same name) from being deleted by this
// stale decision.
func (s *Store) Delete(ctx context.Context, n *NodeSLO) (bool, error) {
	s.echoes.forget(n.name)
	if !n.exists {
		return false, nil
	}
	obj := &slov1alpha1.NodeSLO{ObjectMeta: metav1.ObjectMeta{Name: n.name}}
	if err := s.deleter.Delete(ctx, obj, client.Preconditions{UID: &n.meta.UID}); client.IgnoreNotFound(err) != nil {
		return true, fmt.Errorf("deleting NodeSLO of a node that is gone: %w", err)
	}
	logf.FromContext(ctx).Info("Deleted the NodeSLO of a node that is gone")
	return true, nil
}

// stamp sets on a NodeSLO about to be written the time of the write (the
// health gate counts only what went wrong on a node after it was reached,
// docs/rollout.md#health-gates), the configuration it comes from
// (ConfigurationAnnotation) and the SpecDigestAnnotation, by which the
// write's echo is known.
func (s *Store) stamp(meta *metav1.ObjectMeta, generation int64, digest, from string, decided time.Time) {
	annotations := make(map[string]string, len(meta.Annotations)+3)
	maps.Copy(annotations, meta.Annotations) // the cache shares equal maps: never write into one
	annotations[SpecWrittenAnnotation] = FormatWrittenAt(WrittenAt(s.clock.Now(), decided))
	if from != "" {
		annotations[ConfigurationAnnotation] = from
	}
	annotations[SpecDigestAnnotation] = FormatSpecDigest(generation, digest)
	meta.Annotations = annotations
}
