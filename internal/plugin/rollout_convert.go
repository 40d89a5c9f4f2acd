package plugin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// ConvertRolloutKey prints the NodeSLORollout of ref that holds the policy
// of the retired rollout key of cm (docs/rollout.md#the-strategy): its fields
// become spec.strategy, its "paused" spec.paused. The key's document is
// read strictly: a field the strategy does not have (bearerTokenFile,
// caFile, evictions.reasons, a typo) is an error that names it, as the
// apiserver would refuse it; so is a canary without a nodeSelector, which
// the key refused and the strategy would read as {} (every node a canary).
// The strategy is then checked as the controller checks it, without the
// manager's flags; what the CRD's schema checks (bounds, enums, names,
// https with credentials) the apiserver refuses when the printed
// NodeSLORollout is applied (kubectl apply --dry-run=server shows it first).
func ConvertRolloutKey(cm *ConfigMapInput, ref ConfigMapRef, out io.Writer) error {
	raw, ok := cm.Data[string(sloconfig.KeyRollout)]
	if !ok {
		return fmt.Errorf("ConfigMap %s has no %s key: nothing to convert", ref, sloconfig.KeyRollout)
	}
	var policy struct {
		nodeslov1alpha1.RolloutStrategy
		Paused bool `json:"paused"`
	}
	decoder := json.NewDecoder(bytes.NewReader([]byte(raw)))
	decoder.DisallowUnknownFields()
	if err := decoder.Decode(&policy); err != nil {
		return fmt.Errorf("ConfigMap %s, key %s: %w", ref, sloconfig.KeyRollout, err)
	}
	if err := canaryWithoutSelector(raw); err != nil {
		return fmt.Errorf("ConfigMap %s, key %s: %w", ref, sloconfig.KeyRollout, err)
	}
	spec := nodeslov1alpha1.NodeSLORolloutSpec{Strategy: &policy.RolloutStrategy, Paused: policy.Paused}
	if key := rollout.LoadStrategy(&spec, nil); !key.Valid() {
		return fmt.Errorf("ConfigMap %s, key %s: %s", ref, sloconfig.KeyRollout, strings.Join(key.Messages(), "; "))
	}
	manifest, err := yaml.Marshal(convertedRollout{
		TypeMeta: metav1.TypeMeta{APIVersion: nodeslov1alpha1.GroupVersion.String(), Kind: "NodeSLORollout"},
		Metadata: printedName(ref),
		Spec:     spec,
	})
	if err != nil {
		return err
	}
	_, err = out.Write(manifest)
	return err
}

// canaryWithoutSelector is the error of a key whose canary has no
// nodeSelector, which the key refused: the strategy's nodeSelector is not
// a pointer, so it would decode as {}, which makes every node a canary.
func canaryWithoutSelector(raw string) error {
	var doc struct {
		Canary *struct {
			NodeSelector *metav1.LabelSelector `json:"nodeSelector"`
		} `json:"canary"`
	}
	// raw decoded strictly already.
	_ = json.Unmarshal([]byte(raw), &doc)
	if doc.Canary == nil || doc.Canary.NodeSelector != nil {
		return nil
	}
	return field.Required(field.NewPath("spec", "strategy", "canary", "nodeSelector"),
		"a canary needs a nodeSelector naming the nodes reached first; remove canary to roll out without one")
}

// convertedRollout is the NodeSLORollout convert prints: no status, and
// of its metadata only what names it.
type convertedRollout struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        printedName                        `json:"metadata"`
	Spec            nodeslov1alpha1.NodeSLORolloutSpec `json:"spec"`
}

// printedName is the metadata of an object printed to be applied.
type printedName struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}
