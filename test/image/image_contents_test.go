//go:build image

package image

import (
	"archive/tar"
	"debug/elf"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// imageConfig is the part of `podman image inspect` the specs read.
type imageConfig struct {
	Size   int64
	Config struct {
		User       string
		Entrypoint []string
		Cmd        []string
	}
}

// Shells and shell-like tools a distroless image must not have: an attacker
// with code execution would have nothing to run.
var shells = []string{"bin/sh", "bin/bash", "bin/ash", "bin/busybox", "usr/bin/sh", "usr/bin/bash", "usr/bin/busybox"}

var _ = Describe("the image", func() {
	It("runs /manager as 65532, has no shell, and the binary is static", func() {
		var inspected []imageConfig
		Expect(json.Unmarshal([]byte(podman.mustRun("image", "inspect", imageName)), &inspected)).To(Succeed())
		Expect(inspected).To(HaveLen(1))
		cfg := inspected[0]
		// 65532 or 65532:65532 (distroless's nonroot user, as the base or
		// the Dockerfile's USER sets it), by number.
		uid, _, _ := strings.Cut(cfg.Config.User, ":")
		Expect(uid).To(Equal("65532"), "the image's user (USER in the Dockerfile or its base) is %q", cfg.Config.User)
		Expect(cfg.Config.Entrypoint).To(Equal([]string{"/manager"}), "ENTRYPOINT in the Dockerfile")

		By("listing the image's files (podman export of a created, never started, container)")
		id := strings.TrimSpace(podman.mustRun("create", imageName))
		DeferCleanup(podman.mustRun, "rm", id)
		exported := filepath.Join(GinkgoT().TempDir(), "rootfs.tar")
		Expect(podman.output(exported, "export", id)).To(Succeed())
		files, manager := readRootFS(exported)
		var found []string
		for _, shell := range shells {
			if _, ok := files[shell]; ok {
				found = append(found, "/"+shell)
			}
		}
		Expect(found).To(BeEmpty(), "shells in the image")
		Expect(files["etc/passwd"]).To(BeTrue(), "no /etc/passwd in the image")
		Expect(manager).NotTo(BeEmpty(), "no /manager in the image")

		By("reading /manager's ELF headers: no interpreter, no shared libraries")
		binary := filepath.Join(GinkgoT().TempDir(), "manager")
		Expect(os.WriteFile(binary, manager, 0o600)).To(Succeed())
		f, err := elf.Open(binary)
		Expect(err).NotTo(HaveOccurred())
		defer func() { _ = f.Close() }()
		for _, p := range f.Progs {
			Expect(p.Type).NotTo(Equal(elf.PT_INTERP), "/manager is dynamically linked")
		}
		libs, err := f.ImportedLibraries()
		Expect(err).NotTo(HaveOccurred())
		Expect(libs).To(BeEmpty())

		printFigure("image %s: %.1f MiB (/manager %.1f MiB, %d filesystem entries)",
			imageName, float64(cfg.Size)/(1<<20), float64(len(manager))/(1<<20), len(files))
	})
})

// readRootFS returns the paths of an exported filesystem (true for regular
// files) and the content of /manager.
func readRootFS(tarball string) (map[string]bool, []byte) {
	GinkgoHelper()
	f, err := os.Open(tarball)
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = f.Close() }()
	files := map[string]bool{}
	var manager []byte
	r := tar.NewReader(f)
	for {
		h, err := r.Next()
		if errors.Is(err, io.EOF) {
			return files, manager
		}
		Expect(err).NotTo(HaveOccurred())
		name := strings.TrimPrefix(path.Clean("/"+h.Name), "/")
		files[name] = h.Typeflag == tar.TypeReg
		if name == "manager" {
			manager, err = io.ReadAll(r)
			Expect(err).NotTo(HaveOccurred())
		}
	}
}
