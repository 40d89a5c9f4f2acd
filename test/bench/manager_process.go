package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/nodeslo/nodeslo-controller/test/localcluster"
)

// managerProcess is a NodeSLO controller running as a child, bin/manager
// or Koordinator's koord-manager (koordinator_process.go), with plain-HTTP
// metrics and pprof on loopback, so that its CPU and memory are its own.
type managerProcess struct {
	*localcluster.Process
	cmd         *exec.Cmd
	metricsAddr string
	pprofAddr   string
	// readyURL answers 200 once the controller is ready.
	readyURL string
	// settled says, from a scrape, that the controller has loaded its
	// configuration, reconciled at least that many nodes, and has nothing
	// queued or in progress: each controller's own metrics tell it.
	settled func(ms metrics, nodes int) bool
	log     *os.File
}

// startManager runs binary with the regime's rate limit and workers, then
// extraFlags.
func startManager(binary, kubeconfig, logPath string, r regime, extraFlags []string) (*managerProcess, error) {
	addrs, err := localcluster.FreeLocalAddresses(3)
	if err != nil {
		return nil, err
	}
	args := append([]string{
		"--health-probe-bind-address=" + addrs[0],
		"--metrics-bind-address=" + addrs[1],
		"--metrics-secure=false",
		"--pprof-bind-address=" + addrs[2],
	}, r.managerFlags()...)
	m := &managerProcess{metricsAddr: addrs[1], pprofAddr: addrs[2], readyURL: "http://" + addrs[0] + "/readyz",
		settled: settled}
	return m, m.start(binary, append(args, extraFlags...), kubeconfig, logPath)
}

// start runs binary with args against kubeconfig, logging to logPath.
func (m *managerProcess) start(binary string, args []string, kubeconfig, logPath string) error {
	log, err := os.Create(logPath)
	if err != nil {
		return fmt.Errorf("creating the log of %s: %w", binary, err)
	}
	cmd := exec.Command(binary, args...)
	cmd.Env = []string{"KUBECONFIG=" + kubeconfig, "HOME=" + os.TempDir()}
	// GODEBUG passes through (e.g. memprofilerate=4096 for a finer heap
	// profile), and client-go's feature gates (KUBE_FEATURE_*), to measure
	// their effect; the manager's --watch-list-client decides that gate.
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GODEBUG=") || strings.HasPrefix(kv, "KUBE_FEATURE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Stdout, cmd.Stderr = log, log
	p, err := localcluster.StartProcess(cmd)
	if err != nil {
		_ = log.Close()
		return err
	}
	m.Process, m.cmd, m.log = p, cmd, log
	return nil
}

// name is the controller's executable, for messages.
func (m *managerProcess) name() string { return filepath.Base(m.cmd.Path) }

// stop ends the manager as the kubelet would and closes its log.
func (m *managerProcess) stop() {
	m.Stop(30 * time.Second)
	_ = m.log.Close()
}

func (m *managerProcess) get(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return body, nil
}

func (m *managerProcess) ready(ctx context.Context) bool {
	_, err := m.get(ctx, m.readyURL)
	return err == nil
}

// scrape reads the manager's /metrics.
func (m *managerProcess) scrape(ctx context.Context) (metrics, error) {
	body, err := m.get(ctx, "http://"+m.metricsAddr+"/metrics")
	if err != nil {
		return nil, err
	}
	return parseMetrics(body, "the manager")
}

// parseMetrics reads metrics in Prometheus's text format, as whose serves them.
func parseMetrics(body []byte, whose string) (metrics, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("parsing %s's metrics: %w", whose, err)
	}
	return families, nil
}

// collectGarbage has the manager run a full garbage collection (pprof's
// heap profile with gc=1 does), so that the heap read next is live memory,
// not garbage left by the phase before.
func (m *managerProcess) collectGarbage(ctx context.Context) error {
	_, err := m.get(ctx, "http://"+m.pprofAddr+"/debug/pprof/heap?gc=1")
	return err
}

// saveHeapProfile writes the manager's heap profile to path, for
// `go tool pprof -sample_index=inuse_space path`.
func (m *managerProcess) saveHeapProfile(ctx context.Context, path string) error {
	profile, err := m.get(ctx, "http://"+m.pprofAddr+"/debug/pprof/heap")
	if err != nil {
		return err
	}
	return os.WriteFile(path, profile, 0o644)
}

// profileCPU takes a CPU profile of the manager over the next seconds and
// writes it to path, for `go tool pprof -top path`; the returned channel
// gets the outcome when the profile is written.
func (m *managerProcess) profileCPU(ctx context.Context, seconds int, path string) <-chan error {
	done := make(chan error, 1)
	go func() {
		profile, err := m.get(ctx, fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", m.pprofAddr, seconds))
		if err == nil {
			err = os.WriteFile(path, profile, 0o644)
		}
		done <- err
	}()
	return done
}

// profileCPUFromStart is profileCPU for a manager just started: it waits
// for the pprof server to answer (a few milliseconds of the start go
// unprofiled).
func (m *managerProcess) profileCPUFromStart(ctx context.Context, seconds int, path string) <-chan error {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := m.get(ctx, fmt.Sprintf("http://%s/debug/pprof/", m.pprofAddr)); err == nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	return m.profileCPU(ctx, seconds, path)
}

// cpuSeconds is the user and system CPU time the manager used so far.
func (m *managerProcess) cpuSeconds() (float64, error) {
	return processCPUSeconds(m.cmd.Process.Pid)
}

// rssBytes is the manager's resident set size.
func (m *managerProcess) rssBytes() (float64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", m.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(raw)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", m.cmd.Process.Pid)
}

// metrics is one scrape of the manager's /metrics.
type metrics map[string]*dto.MetricFamily

// sum adds up the samples of a counter or gauge whose labels include all of match.
func (ms metrics) sum(name string, match map[string]string) float64 {
	f, ok := ms[name]
	if !ok {
		return 0
	}
	total := 0.0
	for _, m := range f.GetMetric() {
		if !hasLabels(m, match) {
			continue
		}
		switch {
		case m.Counter != nil:
			total += m.GetCounter().GetValue()
		case m.Gauge != nil:
			total += m.GetGauge().GetValue()
		case m.Untyped != nil:
			total += m.GetUntyped().GetValue()
		}
	}
	return total
}

func hasLabels(m *dto.Metric, match map[string]string) bool {
	found := 0
	for _, l := range m.GetLabel() {
		if v, ok := match[l.GetName()]; ok {
			if v != l.GetValue() {
				return false
			}
			found++
		}
	}
	return found == len(match)
}

// byLabel sums a counter's samples per value of one label.
func (ms metrics) byLabel(name, label string) map[string]float64 {
	out := map[string]float64{}
	f, ok := ms[name]
	if !ok {
		return out
	}
	for _, m := range f.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == label {
				out[l.GetValue()] += m.GetCounter().GetValue()
			}
		}
	}
	return out
}
