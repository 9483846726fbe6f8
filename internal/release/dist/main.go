// Command dist writes contourc's release archives, checksums file and krew
// manifest from the binaries make dist built (see package release).
//
//	go run ./internal/release/dist -version v1.2.3 -dir dist linux/amd64 ...
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/contourc/contourc/internal/release"
)

func main() {
	version := flag.String("version", "", "the release's version, as in the archives' names")
	dir := flag.String("dir", "dist", "the directory of dist/build/OS-ARCH/ and of the archives")
	krew := flag.String("krew-template", "plugins/contourc.yaml", "the krew manifest template")
	readme := flag.String("readme", "README.md", "a file every archive holds")
	flag.Parse()
	if err := run(*version, *dir, *krew, *readme, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(1)
	}
}

func run(version, dir, krewTemplate, readme string, args []string) error {
	if version == "" || len(args) == 0 {
		return fmt.Errorf("usage: dist -version VERSION [-dir DIR] OS/ARCH...")
	}
	var platforms []release.Platform
	for _, a := range args {
		p, err := release.ParsePlatform(a)
		if err != nil {
			return err
		}
		platforms = append(platforms, p)
	}
	tmpl, err := os.ReadFile(krewTemplate)
	if err != nil {
		return err
	}
	doc, err := os.ReadFile(readme)
	if err != nil {
		return err
	}
	if err := release.Dist(dir, version, platforms, map[string][]byte{"README.md": doc}, tmpl); err != nil {
		return err
	}
	fmt.Printf("dist: %d archives, %s and contourc.krew.yaml in %s\n", len(platforms), release.ChecksumsFile(version), dir)
	return nil
}
