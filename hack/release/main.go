// Command release packs the kubectl plugin's release files; `make release`
// runs it after cross-compiling the binaries:
//
//	go run ./hack/release archive -version v0.3.0 -os linux -arch amd64 -binary BIN -completer BIN -out dist/release
//
// writes kubectl-nodeslo_v0.3.0_linux_amd64.tar.gz (.zip for windows), with
// the plugin, its completer kubectl_complete-nodeslo and the LICENSE
// (-license, by default ./LICENSE) at its root;
//
//	go run ./hack/release krew-manifest -version v0.3.0 -url-base URL -dir dist/release
//
// writes nodeslo.yaml, the krew manifest of every plugin archive in the
// directory, each with its SHA-256;
//
//	go run ./hack/release checksums -dir dist/release
//
// writes checksums.txt: the SHA-256 of every other file of the directory,
// in the format of sha256sum (sha256sum -c checksums.txt checks them).
//
// Only the standard library writes the archives, so that the release needs
// no zip tool, and they are byte-for-byte reproducible (fixed times, owners
// and modes), so that the same commit gives the same checksums.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch args := os.Args[2:]; os.Args[1] {
	case "archive":
		err = runArchive(args)
	case "krew-manifest":
		err = runKrewManifest(args)
	case "checksums":
		err = runChecksums(args)
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "release: "+err.Error())
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: release archive|krew-manifest|checksums [flags] (-h for the flags of each)")
	os.Exit(2)
}

func runArchive(args []string) error {
	fs := flag.NewFlagSet("archive", flag.ExitOnError)
	p := platform{}
	version := fs.String("version", "", "release version, e.g. v0.3.0")
	fs.StringVar(&p.os, "os", "", "GOOS of the binary")
	fs.StringVar(&p.arch, "arch", "", "GOARCH of the binary")
	binary := fs.String("binary", "", "the plugin binary built for -os and -arch")
	completer := fs.String("completer", "", "the kubectl_complete-nodeslo binary built for -os and -arch")
	out := fs.String("out", "", "directory to write the archive to")
	license := fs.String("license", licenseName, "the licence file archived beside the binary")
	_ = fs.Parse(args)
	if *version == "" || p.os == "" || p.arch == "" || *binary == "" || *completer == "" || *out == "" {
		return fmt.Errorf("archive needs -version, -os, -arch, -binary, -completer and -out")
	}
	path, err := writeArchive(*out, *version, p, *binary, *completer, *license)
	if err != nil {
		return err
	}
	fmt.Println(path)
	return nil
}

func runKrewManifest(args []string) error {
	fs := flag.NewFlagSet("krew-manifest", flag.ExitOnError)
	version := fs.String("version", "", "release version, e.g. v0.3.0")
	urlBase := fs.String("url-base", "", "URL the archives are downloaded from (the release's page)")
	dir := fs.String("dir", "", "directory of the archives; the manifest is written there")
	_ = fs.Parse(args)
	if *version == "" || *urlBase == "" || *dir == "" {
		return fmt.Errorf("krew-manifest needs -version, -url-base and -dir")
	}
	path, err := writeKrewManifest(*dir, *version, *urlBase)
	if err != nil {
		return err
	}
	fmt.Println(path)
	return nil
}

func runChecksums(args []string) error {
	fs := flag.NewFlagSet("checksums", flag.ExitOnError)
	dir := fs.String("dir", "", "directory of the release files; checksums.txt is written there")
	_ = fs.Parse(args)
	if *dir == "" {
		return fmt.Errorf("checksums needs -dir")
	}
	path, err := writeChecksums(*dir)
	if err != nil {
		return err
	}
	fmt.Println(path)
	return nil
}
