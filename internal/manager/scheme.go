// Package manager assembles the controller-runtime manager that runs the
// controllers, so that cmd/ and the tests build it the same way.
package manager

import (
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/v1alpha1"
)

// NewScheme returns a scheme with the built-in Kubernetes types and NodeSLO.
func NewScheme() *runtime.Scheme {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(slov1alpha1.AddToScheme(scheme))
	return scheme
}
