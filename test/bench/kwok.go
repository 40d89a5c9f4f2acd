package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Nodes that live (BENCH_KWOK): kwok (sigs.k8s.io/kwok) plays the kubelet of
// every bench Node against the bench's own kube-apiserver. It renews each
// Node's Lease and reports its status on a schedule, as a real fleet does,
// so every phase runs under the Node watch's steady traffic, and the steady
// phase measures what that traffic alone costs.

// kwokPace is how often kwok reports each Node's status.
type kwokPace struct {
	name string
	// status is the shortest interval between two status reports of a
	// Node; each waits up to a tenth more, so that the fleet's reports
	// spread out as real kubelets' do.
	status time.Duration
}

// kwokPaces are the paces BENCH_KWOK names: kubelet's defaults (a status
// report every 5 minutes when nothing changed, its
// nodeStatusReportFrequency) and a fast pace that weighs the worst case.
var kwokPaces = map[string]kwokPace{
	kubeletPace: {name: kubeletPace, status: 5 * time.Minute},
	"fast":      {name: "fast", status: 10 * time.Second},
}

// kubeletPace names kubelet's defaults, BENCH_KWOK=1's pace.
const kubeletPace = "kubelet"

// kwokLeaseSeconds is the Node Lease duration kwok keeps, kubelet's
// default (nodeLeaseDurationSeconds 40).
const kwokLeaseSeconds = 40

// kwokPaceNamed reads BENCH_KWOK: empty or 0 for none, 1 for kubelet's
// pace, or a pace's name.
func kwokPaceNamed(v string) (*kwokPace, error) {
	switch v {
	case "", "0":
		return nil, nil
	case "1":
		v = kubeletPace
	}
	p, ok := kwokPaces[v]
	if !ok {
		return nil, fmt.Errorf("BENCH_KWOK=%s: not a pace; use 1 (kubelet's pace), kubelet or fast", v)
	}
	return &p, nil
}

// The bench's kwok Stages (kwok-stages.yaml in bin/bench/), one document
// each: the status report at the pace's interval, and the chaos the
// health-gate phase applies by label (gate_at_scale.go): a Node labelled
// chaosLabel=chaosNotReady turns Ready=False at once and reports nothing
// more; without the label again, it turns Ready=True at once. Every Stage
// reads the chaos label, so that no two of them match one Node.

// stageTemplate is one Node Stage: a name, selector lines, a delay (empty
// for none) and the conditions' template, which reports every condition
// again with a new heartbeat time, the Ready one as the Stage says.
const stageTemplate = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: %s
spec:
  resourceRef:
    apiGroup: v1
    kind: Node
  selector:
    matchExpressions:
%s%s  next:
    statusTemplate: |
      conditions:
      {{ range .status.conditions }}
      {{ if eq .type "Ready" }}
      - type: Ready
%s
      {{ else }}
      - type: {{ .type | Quote }}
        status: {{ .status | Quote }}
        reason: {{ .reason | Quote }}
        message: {{ .message | Quote }}
        lastTransitionTime: {{ .lastTransitionTime | Quote }}
        lastHeartbeatTime: {{ Now | Quote }}
      {{ end }}
      {{ end }}
`

// Selector lines of the Stages.
const (
	readyIs = `    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: %s
      values: ["True"]
`
	chaosIs = `    - key: '.metadata.labels["` + chaosLabel + `"]'
      operator: In
      values: ["` + chaosNotReady + `"]
`
	chaosAbsent = `    - key: '.metadata.labels["` + chaosLabel + `"]'
      operator: DoesNotExist
`
)

// readyReported keeps a Ready condition as it is but for its heartbeat.
const readyReported = `        status: {{ .status | Quote }}
        reason: {{ .reason | Quote }}
        message: {{ .message | Quote }}
        lastTransitionTime: {{ .lastTransitionTime | Quote }}
        lastHeartbeatTime: {{ Now | Quote }}`

// readyTurned makes a Ready condition status, transitioned now.
func readyTurned(status, reason, message string) string {
	return fmt.Sprintf(`        status: %q
        reason: %s
        message: %q
        lastTransitionTime: {{ Now | Quote }}
        lastHeartbeatTime: {{ Now | Quote }}`, status, reason, message)
}

// kwokStages renders the Stages for pace: every Ready Node without the
// chaos label reports its conditions again after the pace's interval
// (each report changes the Node, which schedules the next one); the
// chaos label turns a Node NotReady, and its removal Ready again.
func kwokStages(pace kwokPace) string {
	ms := pace.status.Milliseconds()
	delay := fmt.Sprintf(`  delay:
    durationMilliseconds: %d
    jitterDurationMilliseconds: %d
`, ms, ms+ms/10)
	return strings.Join([]string{
		fmt.Sprintf(stageTemplate, "nodeslo-bench-status-report", fmt.Sprintf(readyIs, "In")+chaosAbsent, delay,
			readyReported),
		fmt.Sprintf(stageTemplate, "nodeslo-bench-chaos-not-ready", fmt.Sprintf(readyIs, "In")+chaosIs, "",
			readyTurned("False", "KubeletNotReady", "the bench's chaos label "+chaosLabel)),
		fmt.Sprintf(stageTemplate, "nodeslo-bench-chaos-recovered", fmt.Sprintf(readyIs, "NotIn")+chaosAbsent, "",
			readyTurned("True", "KubeletReady", "kubelet is posting ready status")),
	}, "---\n")
}

// kwokProcess is a running kwok.
type kwokProcess struct {
	cmd  *exec.Cmd
	log  *os.File
	done chan error
}

// startKwok starts kwok at pace, managing every Node of the cluster of
// kubeconfig, and waits until each of the n bench Nodes has its Lease.
func (b *bench) startKwok(ctx context.Context, pace kwokPace, n int) (*kwokProcess, error) {
	stages := filepath.Join(b.outDir, "kwok-stages.yaml")
	if err := os.WriteFile(stages, []byte(kwokStages(pace)), 0o600); err != nil {
		return nil, err
	}
	log, err := os.Create(filepath.Join(b.outDir, "kwok.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(b.kwokBinary, "--kubeconfig="+b.kubeconfig, "--config="+stages,
		"--manage-all-nodes=true", fmt.Sprintf("--node-lease-duration-seconds=%d", kwokLeaseSeconds))
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = log.Close()
		return nil, fmt.Errorf("starting %s (make kwok installs it): %w", b.kwokBinary, err)
	}
	k := &kwokProcess{cmd: cmd, log: log, done: make(chan error, 1)}
	go func() { k.done <- cmd.Wait() }()
	logf("kwok %s pace (a status report every %s, Leases of %d s): waiting for %d Leases", pace.name,
		pace.status, kwokLeaseSeconds, n)
	start := time.Now()
	for {
		leases := &coordinationv1.LeaseList{}
		if err := b.client.List(ctx, leases, client.InNamespace(corev1.NamespaceNodeLease)); err != nil {
			return k, err
		}
		if len(leases.Items) >= n {
			logf("kwok manages the %d nodes (%d Leases after %.1fs)", n, len(leases.Items), time.Since(start).Seconds())
			return k, nil
		}
		select {
		case err := <-k.done:
			return k, fmt.Errorf("kwok ended: %v (log in %s)", err, log.Name())
		case <-ctx.Done():
			return k, ctx.Err()
		case <-time.After(time.Second):
		}
		if time.Since(start) > 5*time.Minute {
			return k, fmt.Errorf("kwok made %d of %d Leases in 5 minutes (log in %s)", len(leases.Items), n, log.Name())
		}
	}
}

// stop ends kwok.
func (k *kwokProcess) stop() {
	if k == nil {
		return
	}
	_ = k.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-k.done:
		logf("kwok stopped: %v", err)
	case <-time.After(10 * time.Second):
		_ = k.cmd.Process.Kill()
		logf("kwok killed after 10 s: %v", <-k.done)
	}
	_ = k.log.Close()
}
