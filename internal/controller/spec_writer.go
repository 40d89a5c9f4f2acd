package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/v1alpha1"
)

// metadataAnswer asks the apiserver to answer a write with the object's
// metadata only, in protobuf (JSON as a fallback), as the metadata client does.
const metadataAnswer = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1," +
	"application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"

// nodeSLOsPath is where the apiserver serves NodeSLOs.
var nodeSLOsPath = "/apis/" + slov1alpha1.GroupVersion.Group + "/" + slov1alpha1.GroupVersion.Version + "/nodeslos"

// specWriter writes NodeSLOs (JSON, as any client) and takes the answer as
// metadata only. A typed client decodes the whole stored object from
// JSON, which the profile of a change of every node showed to be a fifth
// of the manager's CPU; the controller needs only the resourceVersion and
// generation of the answer when the digest decides
// (docs/behaviour.md#what-the-controller-caches). Writes that must learn
// from the stored spec what the CRD drops go through the typed client.
type specWriter struct {
	rest *rest.RESTClient
}

func newSpecWriter(cfg *rest.Config, httpClient *http.Client) (*specWriter, error) {
	config := metadata.ConfigFor(cfg)
	config.GroupVersion = &schema.GroupVersion{}
	config.APIPath = "/apis" // every request names its path whole
	c, err := rest.RESTClientForConfigAndClient(config, httpClient)
	if err != nil {
		return nil, fmt.Errorf("creating the NodeSLO writer's client: %w", err)
	}
	return &specWriter{rest: c}, nil
}

// create creates slo and returns the metadata stored.
func (w *specWriter) create(ctx context.Context, slo *slov1alpha1.NodeSLO) (*metav1.PartialObjectMetadata, error) {
	return w.send(ctx, w.rest.Post().AbsPath(nodeSLOsPath), slo)
}

// update replaces slo (its resourceVersion a precondition) and returns the
// metadata stored.
func (w *specWriter) update(ctx context.Context, slo *slov1alpha1.NodeSLO) (*metav1.PartialObjectMetadata, error) {
	return w.send(ctx, w.rest.Put().AbsPath(nodeSLOsPath, slo.Name), slo)
}

func (w *specWriter) send(
	ctx context.Context, req *rest.Request, slo *slov1alpha1.NodeSLO,
) (*metav1.PartialObjectMetadata, error) {
	slo.APIVersion, slo.Kind = slov1alpha1.GroupVersion.String(), nodeSLOKind
	body, err := json.Marshal(slo)
	if err != nil {
		return nil, fmt.Errorf("encoding NodeSLO %s: %w", slo.Name, err)
	}
	result := req.Body(body).SetHeader("Content-Type", "application/json").SetHeader("Accept", metadataAnswer).Do(ctx)
	if err := result.Error(); err != nil {
		return nil, err
	}
	obj, err := result.Get()
	if err != nil {
		return nil, fmt.Errorf("decoding the answer to a write of NodeSLO %s: %w", slo.Name, err)
	}
	stored, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		return nil, fmt.Errorf("the answer to a write of NodeSLO %s is a %T, not metadata", slo.Name, obj)
	}
	return stored, nil
}
