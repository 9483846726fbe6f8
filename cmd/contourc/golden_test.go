package main

// Golden tests of the whole pipeline, one case per HTTPProxy feature
// family, in the style of Envoy Gateway's: testdata/golden/<case>/input/
// holds the manifests, expected.envoy.json what `render -o json` writes for
// them and expected.status.json what `check -o json` writes. An optional
// <case>/args file holds extra flags, one per line. Rewrite the expected
// files with `go test ./cmd/contourc -run Golden -update`, then review the
// diff against Contour's behaviour before committing it.

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var goldenCasesDir = filepath.Join(repoRoot, "testdata", "golden")

func TestGoldenCases(t *testing.T) {
	cases, err := os.ReadDir(goldenCasesDir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cases {
		if !c.IsDir() {
			continue
		}
		n++
		dir := filepath.Join(goldenCasesDir, c.Name())
		t.Run(c.Name(), func(t *testing.T) {
			args := goldenCaseArgs(t, dir)
			input := filepath.Join(dir, "input")

			render := runCLI(t, "", append(append([]string{"render", "-o", "json"}, args...), input)...)
			render.wantExit(t, exitOK)
			goldenFile(t, filepath.Join(dir, "expected.envoy.json"), []byte(render.stdout))

			check := runCLI(t, "", append(append([]string{"check", "-o", "json"}, args...), input)...)
			if check.code != exitOK && check.code != exitFindings {
				t.Fatalf("check: exit code %d\nstderr:\n%s", check.code, check.stderr)
			}
			goldenFile(t, filepath.Join(dir, "expected.status.json"), []byte(check.stdout))

			// check exits 1 exactly when some object is not valid, and
			// render names every such object in a warning.
			invalid := strings.Contains(check.stdout, `"status": "False"`)
			if (check.code == exitFindings) != invalid {
				t.Errorf("check exit code %d, but objects with a False condition: %v", check.code, invalid)
			}
			if invalid && !strings.Contains(render.stderr, "warning: ") {
				t.Errorf("render does not warn about invalid objects:\n%s", render.stderr)
			}
		})
	}
	if n == 0 {
		t.Fatalf("no golden cases under %s", goldenCasesDir)
	}
}

// goldenCaseArgs reads <dir>/args: extra flags, one per line ('#' starts a
// comment).
func goldenCaseArgs(t *testing.T, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "args"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			args = append(args, line)
		}
	}
	return args
}

// goldenFile compares got with the file at path, or rewrites it with
// -update.
func goldenFile(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run `go test ./cmd/contourc -run Golden -update` to create it, then review it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s at %s (run `go test ./cmd/contourc -run Golden -update` and review the diff)", path, firstDifference(want, got))
	}
}
