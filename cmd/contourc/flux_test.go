package main

// End-to-end tests of following Flux Kustomizations, on the sample Flux
// monorepo of testdata/flux: clusters/NAME/ hold each cluster's
// Kustomizations and variables, apps/ the bases and overlays they build.
// A git checkout cannot be committed inside another, so the test copies
// the repository to a temporary directory with its dot-git directory as
// .git (its config names the origin remote), and runs each line of
// commands there; expected holds the outputs (rewrite with -update).

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFluxRepositories(t *testing.T) {
	root, err := filepath.Abs(filepath.Join(repoRoot, "testdata", "flux"))
	if err != nil {
		t.Fatal(err)
	}
	cases, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		dir := filepath.Join(root, c.Name())
		t.Run(c.Name(), func(t *testing.T) {
			commands, err := os.ReadFile(filepath.Join(dir, "commands"))
			if err != nil {
				t.Fatal(err)
			}
			t.Chdir(checkout(t, filepath.Join(dir, "repo")))
			var out strings.Builder
			for _, line := range strings.Split(strings.TrimSpace(string(commands)), "\n") {
				if strings.HasPrefix(line, "#") {
					fmt.Fprintf(&out, "%s\n", line)
					continue
				}
				got := runCLI(t, "", strings.Fields(line)...)
				fmt.Fprintf(&out, "$ contourc %s\n", line)
				fmt.Fprintf(&out, "--- stdout\n%s--- stderr\n%s--- exit %d\n\n", got.stdout, durations.ReplaceAllString(got.stderr, "in T"), got.code)
			}
			goldenFile(t, filepath.Join(dir, "expected"), []byte(out.String()))
		})
	}
}

// checkout copies the repository src to a temporary directory, its
// dot-git directory becoming .git, and returns the copy's root.
func checkout(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if first, rest, _ := strings.Cut(rel, string(filepath.Separator)); first == "dot-git" {
			rel = filepath.Join(".git", rest)
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}
