// Package scheme builds the runtime.Scheme that clients of the NodeSLO API
// need: the built-in Kubernetes types plus slo.koordinator.sh/v1alpha1 and
// nodeslo.koordinator.sh/v1alpha1. It
// sits beside the API types, not inside api/slo/v1alpha1, so that a program
// importing only the types (a node agent, say) does not pull client-go's
// scheme of every built-in group; and outside internal/manager, so that the
// kubectl plugin gets it without the controllers.
package scheme

import (
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// New returns a scheme with the built-in Kubernetes types, NodeSLO and NodeSLORollout.
func New() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(slov1alpha1.AddToScheme(s))
	utilruntime.Must(nodeslov1alpha1.AddToScheme(s))
	return s
}
