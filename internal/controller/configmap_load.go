package controller

import (
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// loadedConfigMap is one load of the ConfigMap by the config-cache
// controller: what the rollout controller decides on. Nothing in it is
// written once it is handed over.
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

// loadedConfigMaps holds the latest load; the config-cache controller is
// its only writer, the rollout controller its only reader.
type loadedConfigMaps struct {
	current atomic.Pointer[loadedConfigMap]
}

// latest is the latest load (nil: none yet).
func (l *loadedConfigMaps) latest() *loadedConfigMap { return l.current.Load() }

// handOver makes load the latest.
func (l *loadedConfigMaps) handOver(load *loadedConfigMap) { l.current.Store(load) }
