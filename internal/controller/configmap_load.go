package controller

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// loadedConfigMap is one load of the ConfigMap by the config-cache
// controller: what the rollout controller decides on. The latest is held
// in an atomic.Pointer, the config-cache controller its only writer and
// the rollout controller its only reader; nothing in a load is written
// once it is stored there.
type loadedConfigMap struct {
	// cm is the ConfigMap, or, when there is none, an empty one of its
	// name (exists false), so that Events about a rollout of the defaults
	// still name it.
	cm     *corev1.ConfigMap
	exists bool
	// version is its resourceVersion ("" when it does not exist).
	version string
	// cfg is the configuration its data loads into (the defaults when
	// there is none).
	cfg *sloconfig.Config
}
