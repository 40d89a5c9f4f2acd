package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// listOfNodesAnswered is the answer size of one LIST of Nodes, in both
// readings below: unchanged between them, so in no row.
const listOfNodesAnswered = `apiserver_response_sizes_bucket{component="apiserver",group="",resource="nodes",scope="cluster",subresource="",verb="LIST",version="v1",le="+Inf"} 1
apiserver_response_sizes_sum{component="apiserver",group="",resource="nodes",scope="cluster",subresource="",verb="LIST",version="v1"} 5000
apiserver_response_sizes_count{component="apiserver",group="",resource="nodes",scope="cluster",subresource="",verb="LIST",version="v1"} 1
`

// Two readings of kube-apiserver's metrics, as it prints them: the table
// counts each verb and resource across codes and scopes, conflicts and dry
// runs apart, answer bytes from the response sizes, watch events by
// resource (or kind, in older releases), and leaves out what is no
// resource's (the GET of /metrics) and what did not move.
func TestAPIServerRequestsSince(t *testing.T) {
	before, err := parseAPIServerRequests([]byte(`# TYPE apiserver_request_total counter
apiserver_request_total{code="201",component="apiserver",dry_run="",group="slo.koordinator.sh",resource="nodeslos",scope="cluster",subresource="",verb="POST",version="v1alpha1"} 10
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="nodes",scope="cluster",subresource="",verb="LIST",version="v1"} 1
apiserver_request_total{code="200",component="",dry_run="",group="",resource="",scope="",subresource="",verb="GET",version=""} 7
# TYPE apiserver_response_sizes histogram
` + listOfNodesAnswered))
	if err != nil {
		t.Fatal(err)
	}
	after, err := parseAPIServerRequests([]byte(`# TYPE apiserver_request_total counter
apiserver_request_total{code="201",component="apiserver",dry_run="",group="slo.koordinator.sh",resource="nodeslos",scope="cluster",subresource="",verb="POST",version="v1alpha1"} 30
apiserver_request_total{code="409",component="apiserver",dry_run="",group="slo.koordinator.sh",resource="nodeslos",scope="cluster",subresource="",verb="PUT",version="v1alpha1"} 2
apiserver_request_total{code="200",component="apiserver",dry_run="",group="slo.koordinator.sh",resource="nodeslos",scope="cluster",subresource="",verb="PUT",version="v1alpha1"} 3
apiserver_request_total{code="201",component="apiserver",dry_run="All",group="slo.koordinator.sh",resource="nodeslos",scope="cluster",subresource="",verb="POST",version="v1alpha1"} 1
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="nodes",scope="cluster",subresource="",verb="LIST",version="v1"} 1
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="nodes",scope="cluster",subresource="status",verb="PATCH",version="v1"} 4
apiserver_request_total{code="200",component="",dry_run="",group="",resource="",scope="",subresource="",verb="GET",version=""} 9
# TYPE apiserver_response_sizes histogram
` + listOfNodesAnswered + `apiserver_response_sizes_bucket{component="apiserver",group="slo.koordinator.sh",resource="nodeslos",scope="cluster",subresource="",verb="PUT",version="v1alpha1",le="+Inf"} 5
apiserver_response_sizes_sum{component="apiserver",group="slo.koordinator.sh",resource="nodeslos",scope="cluster",subresource="",verb="PUT",version="v1alpha1"} 2048
apiserver_response_sizes_count{component="apiserver",group="slo.koordinator.sh",resource="nodeslos",scope="cluster",subresource="",verb="PUT",version="v1alpha1"} 5
# TYPE apiserver_watch_events_total counter
apiserver_watch_events_total{group="slo.koordinator.sh",resource="nodeslos",version="v1alpha1"} 40
apiserver_watch_events_total{group="",kind="Node",version="v1"} 3
# TYPE apiserver_watch_events_sizes histogram
apiserver_watch_events_sizes_bucket{group="slo.koordinator.sh",resource="nodeslos",version="v1alpha1",le="+Inf"} 40
apiserver_watch_events_sizes_sum{group="slo.koordinator.sh",resource="nodeslos",version="v1alpha1"} 40960
apiserver_watch_events_sizes_count{group="slo.koordinator.sh",resource="nodeslos",version="v1alpha1"} 40
`))
	if err != nil {
		t.Fatal(err)
	}
	got := after.since(before)
	want := requestTable{
		"POST nodeslos.slo.koordinator.sh":   {Count: 21, DryRun: 1},
		"PUT nodeslos.slo.koordinator.sh":    {Count: 5, Failed: 2, Bytes: 2048},
		"PATCH nodes/status":                 {Count: 4},
		"EVENTS nodeslos.slo.koordinator.sh": {Count: 40, Bytes: 40960},
		"EVENTS Node":                        {Count: 3},
	}
	if len(got) != len(want) {
		t.Errorf("got %d rows, want %d: %v", len(got), len(want), got)
	}
	for key, w := range want {
		if g, ok := got[key]; !ok || g != w {
			t.Errorf("row %q = %+v (present %v), want %+v", key, g, ok, w)
		}
	}

	var out bytes.Buffer
	printRequestTables(&out, []phaseResult{
		{Regime: unthrottled, Repetition: 1, Phase: phaseCold, APIServerRequests: got,
			FloorAPIServerRequests: requestTable{"POST nodeslos.slo.koordinator.sh": {Count: 20}}},
		{Regime: unthrottled, Repetition: 1, Phase: phaseRestart, APIServerRequests: got},
	}, 1)
	text := out.String()
	if !strings.Contains(text, "requests in unthrottled/cold (run 1)") || strings.Contains(text, phaseRestart) {
		t.Errorf("the tables printed are not the cold phase's alone:\n%s", text)
	}
	wantRow := "POST nodeslos.slo.koordinator.sh 21 0 1 0.0 20 0 0 0.0"
	found := false
	for line := range strings.Lines(text) {
		found = found || strings.Join(strings.Fields(line), " ") == wantRow
	}
	if !found {
		t.Errorf("no row %q (the manager's 21 with 1 dry run beside the floor's 20):\n%s", wantRow, text)
	}
}

// With koord-manager, each table has its columns after the floor's, and
// rows only it has come last.
func TestPrintRequestTablesWithKoordinator(t *testing.T) {
	var out bytes.Buffer
	p := phaseResult{Regime: unthrottled, Repetition: 1, Phase: phaseCold,
		APIServerRequests:      requestTable{"POST " + nodeSLOResource: {Count: 21}},
		FloorAPIServerRequests: requestTable{"POST " + nodeSLOResource: {Count: 20}}}
	p.setKoordinator(koordinatorFigures{Seconds: 1, APIServerRequests: requestTable{
		"POST " + nodeSLOResource: {Count: 20}, "PUT " + nodeSLOResource: {Count: 20},
	}})
	printRequestTables(&out, []phaseResult{p}, 1)
	var lines []string
	for line := range strings.Lines(out.String()) {
		if fields := strings.Fields(line); len(fields) > 0 {
			lines = append(lines, strings.Join(fields, " "))
		}
	}
	want := []string{
		"kube-apiserver's requests in unthrottled/cold (run 1), manager, floor and koord-manager:",
		"request manager failed dry run KiB floor failed dry run KiB koord-manager failed dry run KiB",
		"POST nodeslos.slo.koordinator.sh 21 0 0 0.0 20 0 0 0.0 20 0 0 0.0",
		"PUT nodeslos.slo.koordinator.sh 0 0 0 0.0 0 0 0 0.0 20 0 0 0.0",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("table\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}
