package storedslo

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// writer sends one NodeSLO write and returns the metadata stored.
type writer interface {
	create(ctx context.Context, slo *slov1alpha1.NodeSLO) (*metav1.ObjectMeta, error)
	update(ctx context.Context, slo *slov1alpha1.NodeSLO) (*metav1.ObjectMeta, error)
}

// metadataAnswer asks the apiserver to answer a write with the object's
// metadata only, in protobuf (JSON as a fallback), as the metadata client does.
const metadataAnswer = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1," +
	"application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"

// Path is where the apiserver serves NodeSLOs: the path every write of a
// RESTWriter names (tests count the requests made there).
var Path = "/apis/" + slov1alpha1.GroupVersion.Group + "/" + slov1alpha1.GroupVersion.Version + "/nodeslos"

// RESTWriter writes NodeSLOs (JSON, as any client) and takes the answer as
// metadata only. A typed client decodes the whole stored object from
// JSON, which the profile of a change of every node showed to be a fifth
// of the manager's CPU; the controller needs only the answer's
// resourceVersion and generation.
type RESTWriter struct {
	rest *rest.RESTClient
}

// NewRESTWriter makes a RESTWriter from the manager's rest config and HTTP client.
func NewRESTWriter(cfg *rest.Config, httpClient *http.Client) (*RESTWriter, error) {
	config := metadata.ConfigFor(cfg)
	config.GroupVersion = &schema.GroupVersion{}
	config.APIPath = "/apis" // every request names its path whole
	c, err := rest.RESTClientForConfigAndClient(config, httpClient)
	if err != nil {
		return nil, fmt.Errorf("creating the NodeSLO writer's client: %w", err)
	}
	return &RESTWriter{rest: c}, nil
}

func (w *RESTWriter) create(ctx context.Context, slo *slov1alpha1.NodeSLO) (*metav1.ObjectMeta, error) {
	return w.send(ctx, w.rest.Post().AbsPath(Path), slo)
}

// update replaces slo; its resourceVersion is a precondition.
func (w *RESTWriter) update(ctx context.Context, slo *slov1alpha1.NodeSLO) (*metav1.ObjectMeta, error) {
	return w.send(ctx, w.rest.Put().AbsPath(Path, slo.Name), slo)
}

func (w *RESTWriter) send(
	ctx context.Context, req *rest.Request, slo *slov1alpha1.NodeSLO,
) (*metav1.ObjectMeta, error) {
	slo.APIVersion, slo.Kind = apiVersion, kind
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
	return &stored.ObjectMeta, nil
}

// ClientWriter writes through a controller-runtime client: for the narrow
// unit tests whose fake client serves no REST requests.
type ClientWriter struct {
	Client client.Writer
}

func (w ClientWriter) create(ctx context.Context, slo *slov1alpha1.NodeSLO) (*metav1.ObjectMeta, error) {
	slo.Spec = *slo.Spec.DeepCopy() // the client decodes the answer into it
	if err := w.Client.Create(ctx, slo); err != nil {
		return nil, err
	}
	return &slo.ObjectMeta, nil
}

func (w ClientWriter) update(ctx context.Context, slo *slov1alpha1.NodeSLO) (*metav1.ObjectMeta, error) {
	slo.Spec = *slo.Spec.DeepCopy()
	if err := w.Client.Update(ctx, slo); err != nil {
		return nil, err
	}
	return &slo.ObjectMeta, nil
}
