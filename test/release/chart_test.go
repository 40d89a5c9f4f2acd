//go:build release

package release

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/nodeslo/nodeslo-controller/test/localcluster"
	"github.com/nodeslo/nodeslo-controller/test/nodecluster"
)

// The namespace and Deployment the chart and install.yaml create.
const (
	namespace  = "koordinator-system"
	deployment = "nodeslo-controller-controller-manager"
)

// The packaged chart carries the release's version as its version and
// appVersion, and `helm install` of the .tgz on a control plane creates the
// manager's Deployment with the image tagged with that version, by default.
func TestHelmInstallsTheChartPackageAtTheReleaseVersion(t *testing.T) {
	r := releaseUnderTest(t)
	helm := tool(t, "HELM")
	chart := r.path(r.chartPackage())

	var metadata struct{ Version, AppVersion string }
	if err := yaml.Unmarshal([]byte(runCommand(t, nil, helm, "show", "chart", chart)), &metadata); err != nil {
		t.Fatal(err)
	}
	if metadata.Version != r.version || metadata.AppVersion != r.version {
		t.Errorf("the chart package's version %q and appVersion %q, want both %s",
			metadata.Version, metadata.AppVersion, r.version)
	}

	// A control plane without the CRDs: the chart installs both. It has
	// no cert-manager, so the webhook (which needs its certificate) is off.
	cluster, err := localcluster.Start(localcluster.Options{
		AssetsDir: os.Getenv("KUBEBUILDER_ASSETS"),
		CRDDir:    t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cluster.Stop(); err != nil {
			t.Error(err)
		}
	})
	work := t.TempDir()
	kubeconfig := filepath.Join(work, "admin.kubeconfig")
	if err := os.WriteFile(kubeconfig, cluster.AdminKubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	helmEnv := []string{
		"KUBECONFIG=" + kubeconfig,
		"HELM_CACHE_HOME=" + filepath.Join(work, "cache"),
		"HELM_CONFIG_HOME=" + filepath.Join(work, "config"),
		"HELM_DATA_HOME=" + filepath.Join(work, "data"),
	}
	// A release made for a registry (IMAGE_REPO with a /) carries its image
	// and installs as it is; one made for a bare name requires it at install.
	install := []string{"install", "nodeslo", chart, "-n", namespace, "--create-namespace",
		"--set", "webhook.enabled=false", "--wait=false"}
	if repository, _ := nodecluster.SplitImage(r.image); !strings.Contains(repository, "/") {
		install = append(install, "--set", "manager.image.repository="+repository)
	}
	runCommand(t, helmEnv, helm, install...)

	kubectl, err := localcluster.KubectlBinary(os.Getenv("KUBEBUILDER_ASSETS"))
	if err != nil {
		t.Fatal(err)
	}
	image := runCommand(t, []string{"KUBECONFIG=" + kubeconfig}, kubectl, "get", "deployment", deployment,
		"-n", namespace, "-o", "jsonpath={.spec.template.spec.containers[*].image}")
	if image != r.image {
		t.Errorf("helm install created the Deployment with image %q, want %q", image, r.image)
	}
}

// The packaged chart's alerts and dashboard link the runbook make release
// pinned (RUNBOOK_URL: by default docs/runbook.md at the release's tag).
func TestTheChartPackageLinksTheReleasesRunbook(t *testing.T) {
	r := releaseUnderTest(t)
	want := os.Getenv("RELEASE_RUNBOOK_URL")
	if want == "" {
		t.Fatal("RELEASE_RUNBOOK_URL is unset: run `make test-release VERSION=vX.Y.Z`")
	}
	project := strings.Contains(want, "github.com/nodeslo/nodeslo-controller/")
	if project && !strings.Contains(want, "/blob/"+r.version+"/") {
		t.Errorf("the release links the project's runbook %s, not at its tag %s", want, r.version)
	}
	var values struct {
		RunbookURL string `json:"runbookURL"`
	}
	helm := tool(t, "HELM")
	chart := r.path(r.chartPackage())
	if err := yaml.Unmarshal([]byte(runCommand(t, nil, helm, "show", "values", chart)), &values); err != nil {
		t.Fatal(err)
	}
	if values.RunbookURL != want {
		t.Errorf("the chart package's runbookURL is %q, want %q", values.RunbookURL, want)
	}
	rendered := runCommand(t, nil, helm, "template", "nodeslo", chart, "--kube-version", "1.30.0",
		"--set", "manager.image.repository=registry.example.com/nodeslo-controller",
		"--set", "prometheusRule.enabled=true", "--set", "grafanaDashboard.enabled=true")
	for _, link := range []string{"runbook_url: " + want + "#nodeslooutofdate", `"url": "` + want + `"`} {
		if !strings.Contains(rendered, link) {
			t.Errorf("the chart package renders no %s", link)
		}
	}
}

// install.yaml names the same image as the chart: the release's tag.
func TestInstallYAMLNamesTheImageOfTheRelease(t *testing.T) {
	r := releaseUnderTest(t)
	if !strings.HasSuffix(r.image, ":"+r.version) {
		t.Fatalf("RELEASE_IMAGE %q is not tagged with the release's version %s", r.image, r.version)
	}
	f, err := os.Open(r.path("install.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	reader := utilyaml.NewYAMLReader(bufio.NewReader(f))
	var images []string
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("reading install.yaml: %v", err)
		}
		var d appsv1.Deployment
		if err := yaml.Unmarshal(doc, &d); err != nil || d.Kind != "Deployment" {
			continue
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			images = append(images, c.Image)
		}
	}
	if len(images) != 1 || images[0] != r.image {
		t.Errorf("install.yaml's Deployment images = %v, want [%s]", images, r.image)
	}
}
