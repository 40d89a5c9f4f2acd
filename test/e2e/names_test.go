//go:build e2e

package e2e

// Names dist/install.yaml and config/samples give to what the specs look at.
const (
	namespace      = "koordinator-system"
	serviceAccount = "nodeslo-controller-controller-manager"
	deployment     = "nodeslo-controller-controller-manager"
	configMapName  = "slo-controller-config"
	leaseName      = "nodeslo-controller.slo.koordinator.sh"
)
