package version

import (
	"runtime"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestUnstampedBuildIsTheDevVersion(t *testing.T) {
	// go test links no -X flags: the defaults must be a valid SemVer
	// version below every release, which Helm and krew accept.
	if got := Version(); got != "v0.0.0-dev" {
		t.Errorf("Version() = %q, want v0.0.0-dev", got)
	}
	info := Get()
	if info.GoVersion != runtime.Version() || info.Platform != runtime.GOOS+"/"+runtime.GOARCH ||
		info.Major != "0" || info.Minor != "0" {
		t.Errorf("Get() = %+v, want this Go version and platform", info)
	}
	if s := String(); !strings.HasPrefix(s, "v0.0.0-dev (revision unknown, "+runtime.Version()) {
		t.Errorf("String() = %q", s)
	}
}

func TestBuildInfoGaugeIsOneWithTheVersionLabels(t *testing.T) {
	registry := prometheus.NewRegistry()
	if err := RegisterBuildInfo(registry); err != nil {
		t.Fatal(err)
	}
	// A second manager in the same process registers it again: no error.
	if err := RegisterBuildInfo(registry); err != nil {
		t.Fatalf("registering twice: %v", err)
	}
	want := `# HELP nodeslo_build_info ` +
		`Always 1, labelled with the version, git revision and Go version the manager was built from.
# TYPE nodeslo_build_info gauge
nodeslo_build_info{go_version="` + runtime.Version() + `",revision="unknown",version="v0.0.0-dev"} 1
`
	if err := testutil.GatherAndCompare(registry, strings.NewReader(want), MetricBuildInfo); err != nil {
		t.Error(err)
	}
}
