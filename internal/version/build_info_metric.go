package version

import (
	"errors"
	"runtime"

	"github.com/prometheus/client_golang/prometheus"
)

// MetricBuildInfo follows the Prometheus convention for build information:
// a gauge that is always 1, whose labels carry the version, so that a query
// can join it to any other series of the same target
// (e.g. `... * on(instance) group_left(version) nodeslo_build_info`).
const MetricBuildInfo = "nodeslo_build_info"

// NewBuildInfoCollector returns the nodeslo_build_info gauge of this binary.
func NewBuildInfoCollector() prometheus.Collector {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: MetricBuildInfo,
		Help: "Always 1, labelled with the version, git revision and Go version the manager was built from.",
		ConstLabels: prometheus.Labels{
			"version":    version,
			"revision":   revision,
			"go_version": runtime.Version(),
		},
	}, func() float64 { return 1 })
}

// RegisterBuildInfo registers the gauge on registerer once: a process that
// builds several managers (the tests do) registers it at the first and
// keeps that one.
func RegisterBuildInfo(registerer prometheus.Registerer) error {
	err := registerer.Register(NewBuildInfoCollector())
	if _, already := errors.AsType[prometheus.AlreadyRegisteredError](err); already {
		return nil
	}
	return err
}
