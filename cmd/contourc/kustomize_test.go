package main

// Golden tests of kustomize builds on small sample repositories:
// testdata/kustomize/<case>/repo is the repository, <case>/commands the
// contourc command lines run in it (one per line), and <case>/expected
// what each printed and its exit code. Durations (-v) are replaced by
// "T". Rewrite with `go test ./cmd/contourc -run Kustomize -update`.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var durations = regexp.MustCompile(`\bin [0-9.]+(ns|µs|ms|s)\b`)

func TestKustomizeRepositories(t *testing.T) {
	root, err := filepath.Abs(filepath.Join(repoRoot, "testdata", "kustomize"))
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
			t.Chdir(filepath.Join(dir, "repo"))
			var out strings.Builder
			for _, line := range strings.Split(strings.TrimSpace(string(commands)), "\n") {
				got := runCLI(t, "", strings.Fields(line)...)
				fmt.Fprintf(&out, "$ contourc %s\n", line)
				fmt.Fprintf(&out, "--- stdout\n%s--- stderr\n%s--- exit %d\n\n", got.stdout, durations.ReplaceAllString(got.stderr, "in T"), got.code)
			}
			goldenFile(t, filepath.Join(dir, "expected"), []byte(out.String()))
		})
	}
}
