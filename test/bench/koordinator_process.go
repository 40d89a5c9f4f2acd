package main

import (
	"fmt"

	"github.com/nodeslo/nodeslo-controller/test/localcluster"
)

// startKoordinator runs Koordinator's koord-manager (BENCH_KOORDINATOR)
// as the third side of a regime, with only its NodeSLO controller; it is
// ready once its metrics answer (its /readyz has no check with its
// webhook off, so it serves none).
func startKoordinator(binary, kubeconfig, logPath string, r regime) (*managerProcess, error) {
	addrs, err := localcluster.FreeLocalAddresses(3)
	if err != nil {
		return nil, err
	}
	m := &managerProcess{metricsAddr: addrs[1], pprofAddr: addrs[2], readyURL: "http://" + addrs[1] + "/metrics",
		settled: koordinatorSettled}
	return m, m.start(binary, koordinatorArgs(r, addrs[0], addrs[1], addrs[2]), kubeconfig, logPath)
}

// koordinatorArgs are koord-manager v1.8.0's flags (cmd/koord-manager of
// its module) for the bench: its NodeSLO controller alone, as one replica
// with nothing to elect, no webhook (its certificates and configurations
// are not what is measured), the bench's ConfigMap, free loopback ports.
// Its client keeps its own defaults (QPS 30, burst 50) except in an
// unthrottled regime: its limit flags only apply a positive value, and
// with neither set controller-runtime leaves the client unlimited, as the
// kubeconfig sets no limit. Its NodeSLO controller has no flag for its
// workers: it runs one in every regime.
func koordinatorArgs(r regime, probeAddr, metricsAddr, pprofAddr string) []string {
	args := []string{
		"--controllers=" + controllerName,
		"--enable-leader-election=false",
		"--feature-gates=WebhookFramework=false",
		"--config-namespace=" + configNamespace,
		"--slo-config-name=" + configName,
		"--health-probe-addr=" + probeAddr,
		"--metrics-addr=" + metricsAddr,
		"--enable-pprof=true",
		"--pprof-addr=" + pprofAddr,
	}
	if r.unthrottled() {
		args = append(args, "--rest-config-qps=-1", "--rest-config-burst=-1")
	}
	return args
}

// koordinatorSettled: koord-manager has reconciled at least nodes nodes,
// its NodeSLO controller's queue is empty and no worker is busy. It has no
// metric of its configuration; its workers start once its caches synced,
// the ConfigMap's among them, by when it has read the configuration.
func koordinatorSettled(ms metrics, nodes int) bool {
	return reconciles(ms) >= float64(nodes) && idle(ms)
}

// koordinatorLogName names the log of koord-manager started for a phase.
func koordinatorLogName(r regime, label, repetitionSuffix string) string {
	return fmt.Sprintf("koord-manager-%s-%s%s.log", r.name, label, repetitionSuffix)
}
