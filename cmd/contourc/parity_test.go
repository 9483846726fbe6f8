package main

// The in-repo parity tests: cases of the shared conformance corpus are
// rendered in memory and compared (see xds_test.go) with what Contour itself
// served for them: TestParity runs every case, except the known gaps
// listed below.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/contourc/contourc/cmd/contourc/internal/verdict"
)

// conformanceDir is the shared corpus, a sibling of the repository.
var conformanceDir = filepath.Join(repoRoot, "..", "shared", "conformance")

// knownGaps are cases contourc cannot pass yet, with the reason.
var knownGaps = map[string]string{
	"envoy-gateway/gatewayapi-httproute-with-response-header-filter-invalid-header-values": "contourc refuses header values Envoy rejects (README: Differences from Contour)",
}

func TestParity(t *testing.T) {
	if _, err := os.Stat(conformanceDir); err != nil {
		t.Skipf("no conformance corpus at %s: %v", conformanceDir, err)
	}
	cases, err := supportedCases(conformanceDir)
	if err != nil {
		t.Fatal(err)
	}
	identical := 0
	for _, dir := range cases {
		name, _ := filepath.Rel(conformanceDir, dir)
		if reason, ok := knownGaps[name]; ok {
			t.Run(name, func(t *testing.T) { t.Skip(reason) })
			continue
		}
		if t.Run(name, func(t *testing.T) { parityCase(t, dir) }) {
			identical++
		}
	}
	t.Logf("parity: %d/%d supported cases identical", identical, len(cases))
}

// supportedCases lists the case directories under root, skipping those
// where Contour's own output varies.
func supportedCases(root string) ([]string, error) {
	var cases []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "expected.envoy.json" {
			return err
		}
		if dir := filepath.Dir(path); !fileExists(filepath.Join(dir, "NONDETERMINISTIC")) {
			cases = append(cases, dir)
		}
		return nil
	})
	sort.Strings(cases)
	return cases, err
}

func parityCase(t *testing.T, dir string) {
	args, err := caseArgs(dir)
	if err != nil {
		t.Fatal(err)
	}
	input := filepath.Join(dir, "input")
	got := runCLI(t, "", append(append([]string{"render", "-o", "json"}, args...), input)...)
	if fileExists(filepath.Join(dir, "REJECTED")) {
		// The API server would have refused an object: so must contourc.
		got.wantExit(t, exitFailure)
		if got.stdout != "" {
			t.Errorf("refused input but wrote %d bytes on stdout", len(got.stdout))
		}
		return
	}
	got.wantExit(t, exitOK)
	want, err := os.ReadFile(filepath.Join(dir, "expected.envoy.json"))
	if err != nil {
		t.Fatal(err)
	}
	wantXDS, err := parseXDS(want)
	if err != nil {
		t.Fatalf("expected.envoy.json: %v", err)
	}
	gotXDS, err := parseXDS([]byte(got.stdout))
	if err != nil {
		t.Fatalf("render -o json output: %v", err)
	}
	for _, d := range compareXDS(wantXDS, gotXDS) {
		t.Error(d)
	}

	statusFile := filepath.Join(dir, "expected.status.json")
	if fileExists(statusFile) {
		checked := runCLI(t, "", append(append([]string{"check", "-o", "json"}, args...), input)...)
		if checked.code == exitFailure {
			t.Fatalf("check failed:\n%s", checked.stderr)
		}
		compareStatus(t, statusFile, []byte(checked.stdout))
	}
}

// caseArgs reads a case's extra flags; {case} stands for its directory.
func caseArgs(dir string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "ARGS"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return strings.Fields(strings.ReplaceAll(string(b), "{case}", dir)), err
}

// compareStatus compares the objects and their verdicts; messages and
// timestamps are Contour's wording, not behaviour.
func compareStatus(t *testing.T, wantFile string, got []byte) {
	t.Helper()
	want, err := os.ReadFile(wantFile)
	if err != nil {
		t.Fatal(err)
	}
	verdicts := func(b []byte) (map[string]string, error) {
		var list []struct {
			APIVersion, Kind, Namespace, Name string
			Status                            any
			NotServed                         string
		}
		if err := json.Unmarshal(b, &list); err != nil {
			return nil, err
		}
		m := map[string]string{}
		for _, o := range list {
			if (o.Kind == "Ingress" || o.NotServed != "") && o.Status == nil {
				// contourc's entry for an Ingress, or an object
				// no instance serves, on which Contour writes no
				// status.
				continue
			}
			m[fmt.Sprintf("%s %s %s/%s", o.APIVersion, o.Kind, o.Namespace, o.Name)] = verdict.OfStatus(o.Status).Word
		}
		return m, nil
	}
	w, err := verdicts(want)
	if err != nil {
		t.Fatalf("expected.status.json: %v", err)
	}
	g, err := verdicts(got)
	if err != nil {
		t.Fatalf("check -o json output: %v\n%s", err, got)
	}
	for k, v := range w {
		if g[k] != v {
			t.Errorf("status of %s: verdict %q, want %q", k, g[k], v)
		}
	}
	for k := range g {
		if _, ok := w[k]; !ok && !sameNameExpected(w, k) {
			t.Errorf("status of %s: not expected", k)
		}
	}
}

// sameNameExpected says whether Contour wrote status on another kind of
// the same namespace/name: Contour keeps one route status per name, so
// routes of several kinds sharing a name get only one status there, while
// contourc writes each (README: Differences from Contour).
func sameNameExpected(want map[string]string, key string) bool {
	name := key[strings.LastIndex(key, " ")+1:]
	for k := range want {
		if strings.HasSuffix(k, " "+name) && strings.Contains(k, "Route ") && strings.Contains(key, "Route ") {
			return true
		}
	}
	return false
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
