package chart

import (
	"bytes"
	"os"
	"testing"
)

// The chart carries the project's licence (helm package archives the
// chart's LICENSE file): dist/chart/LICENSE is a copy of the root's, kept
// byte for byte.
func TestTheChartCarriesTheProjectsLicence(t *testing.T) {
	root, err := os.ReadFile("../../LICENSE")
	if err != nil {
		t.Fatalf("the project has no LICENSE: %v", err)
	}
	chart, err := os.ReadFile("../../dist/chart/LICENSE")
	if err != nil {
		t.Fatalf("the chart has no LICENSE: %v", err)
	}
	if !bytes.Equal(chart, root) {
		t.Error("dist/chart/LICENSE differs from LICENSE: copy it again (cp LICENSE dist/chart/LICENSE)")
	}
}
