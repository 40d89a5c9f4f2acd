package nodecluster

import "testing"

func TestNormalizeImage(t *testing.T) {
	for ref, want := range map[string]string{
		"nodeslo-controller:dev":                      "docker.io/library/nodeslo-controller:dev",
		"nodeslo-controller":                          "docker.io/library/nodeslo-controller:latest",
		"nodeslo/nodeslo-controller:v0.3.0":           "docker.io/nodeslo/nodeslo-controller:v0.3.0",
		"localhost/nodeslo-cluster/pause:1":           "localhost/nodeslo-cluster/pause:1",
		"registry.example.com:5000/a/b:v1":            "registry.example.com:5000/a/b:v1",
		"registry.example.com:5000/a/b":               "registry.example.com:5000/a/b:latest",
		"ghcr.io/nodeslo/nodeslo-controller@sha256:0": "ghcr.io/nodeslo/nodeslo-controller@sha256:0",
	} {
		if got := NormalizeImage(ref); got != want {
			t.Errorf("NormalizeImage(%q) = %q, want %q", ref, got, want)
		}
	}
}
