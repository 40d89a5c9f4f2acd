package plugin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// SetPaused sets "paused" in the ConfigMap's rollout key, as `kubectl
// nodeslo rollout pause` and `resume` do (docs/rollout.md#the-key). Every
// other field of the key is kept (the key is written back as indented JSON,
// its fields in alphabetical order), and so is every other key. A ConfigMap
// without the key has no rollout to pause: that is an error that says so.
// A resume of a rollout the health gate halted changes the key whatever
// "paused" was (resumeHalt). The write is an update at the resourceVersion
// read, as for an undo.
func SetPaused(ctx context.Context, c client.Client, ref ConfigMapRef, paused bool, out io.Writer) error {
	cm := &corev1.ConfigMap{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, cm); err != nil {
		return fmt.Errorf("reading ConfigMap %s: %w", ref, err)
	}
	raw, ok := cm.Data[string(sloconfig.KeyRollout)]
	if !ok {
		return fmt.Errorf("ConfigMap %s has no %s key: every change reaches every node at once, "+
			"so there is no rollout to pause or resume", ref, sloconfig.KeyRollout)
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil || doc == nil {
		return fmt.Errorf("ConfigMap %s: %s is not a JSON object, so it pauses every rollout already; "+
			"fix it first (kubectl nodeslo validate): %v", ref, sloconfig.KeyRollout, err)
	}
	if was, _ := doc["paused"].(bool); !paused && !was {
		// Nothing to unpause: a resume meant for the data halted is a retry.
		if err := withheldByHalt(cm, ref); err != nil {
			return err
		}
	}
	if halt := haltInForce(cm); !paused && halt != nil {
		return resumeHalt(ctx, c, ref, cm, doc, halt, out)
	}
	verb := map[bool]string{true: "paused", false: "resumed"}[paused]
	if was, _ := doc["paused"].(bool); was == paused {
		printLine(out, fmt.Sprintf("ConfigMap %s: the rollout is %s already (\"paused\": %t)", ref, verb, paused))
		return nil
	}
	doc["paused"] = paused
	if err := writeRolloutKey(ctx, c, ref, cm, rolloutKeyText(doc)); err != nil {
		return err
	}
	printLine(out, fmt.Sprintf("ConfigMap %s: rollout %s (\"paused\": %t in %s); follow it with: "+
		"kubectl nodeslo rollout status", ref, verb, paused, sloconfig.KeyRollout))
	return nil
}

// rolloutKeyText is the rollout key as SetPaused writes it back.
func rolloutKeyText(doc map[string]any) string {
	// A map of JSON values always marshals.
	b, _ := json.MarshalIndent(doc, "", "  ")
	return string(b) + "\n"
}

// writeRolloutKey updates the ConfigMap read with the rollout key's new
// text, at the resourceVersion read.
func writeRolloutKey(ctx context.Context, c client.Client, ref ConfigMapRef, cm *corev1.ConfigMap, text string) error {
	cm.Data[string(sloconfig.KeyRollout)] = text
	switch err := c.Update(ctx, cm, client.FieldOwner(undoFieldManager)); {
	case apierrors.IsConflict(err):
		return fmt.Errorf("ConfigMap %s changed meanwhile; nothing was written, run the command again: %w", ref, err)
	case err != nil:
		return fmt.Errorf("writing ConfigMap %s: %w", ref, err)
	}
	return nil
}
