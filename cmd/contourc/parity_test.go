package main

// The in-repo parity tests: cases of the shared conformance corpus are
// rendered in memory and compared (see xds_test.go) with what Contour itself
// served for them. TestIngressParity covers the Ingress-only cases;
// TestParity every case whose flags contourc supports, except the known
// gaps listed below.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	yamlv3 "go.yaml.in/yaml/v3"
)

// conformanceDir is the shared corpus, a sibling of the repository.
var conformanceDir = filepath.Join(repoRoot, "..", "shared", "conformance")

// ingressKinds are the kinds a case may hold to count as an Ingress case.
var ingressKinds = map[string]bool{
	"Ingress": true, "Service": true, "EndpointSlice": true, "Secret": true, "Deployment": true,
}

// unsupportedFlags are Contour flags contourc does not implement yet; cases
// using them are left to later work.
var unsupportedFlags = []string{}

// knownGaps are cases contourc cannot pass yet, with the reason.
var knownGaps = map[string]string{
	"contour/docs-config-jwt-verification-L98":                                             "localJWKS is not in the published Contour API module (v1.33)",
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

// supportedCases lists the case directories under root that use no
// unsupported flag, skipping those where Contour's own output varies.
func supportedCases(root string) ([]string, error) {
	var cases []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "expected.envoy.json" {
			return err
		}
		dir := filepath.Dir(path)
		if fileExists(filepath.Join(dir, "NONDETERMINISTIC")) {
			return nil
		}
		args, err := caseArgs(dir)
		if err != nil {
			return err
		}
		for _, a := range args {
			for _, f := range unsupportedFlags {
				if a == f || strings.HasPrefix(a, f+"=") {
					return nil
				}
			}
		}
		cases = append(cases, dir)
		return nil
	})
	sort.Strings(cases)
	return cases, err
}

func TestIngressParity(t *testing.T) {
	if _, err := os.Stat(conformanceDir); err != nil {
		t.Skipf("no conformance corpus at %s: %v", conformanceDir, err)
	}
	cases, err := ingressCases(conformanceDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatalf("no Ingress-only case under %s", conformanceDir)
	}
	identical := 0
	for _, dir := range cases {
		name, _ := filepath.Rel(conformanceDir, dir)
		if t.Run(name, func(t *testing.T) { parityCase(t, dir) }) {
			identical++
		}
	}
	t.Logf("parity: %d/%d Ingress cases identical", identical, len(cases))
}

// parityCase runs render (and check, when Contour's status is known) on one
// case directory and compares with Contour's output.
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
		}
		if err := json.Unmarshal(b, &list); err != nil {
			return nil, err
		}
		m := map[string]string{}
		for _, o := range list {
			m[fmt.Sprintf("%s %s %s/%s", o.APIVersion, o.Kind, o.Namespace, o.Name)] = verdictOf(o.Status).Word
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

// ingressCases lists the case directories under root whose inputs hold only
// ingressKinds, skipping those where Contour's own output varies.
func ingressCases(root string) ([]string, error) {
	var cases []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "expected.envoy.json" {
			return err
		}
		dir := filepath.Dir(path)
		if fileExists(filepath.Join(dir, "NONDETERMINISTIC")) {
			return nil
		}
		if ok, err := onlyIngressKinds(filepath.Join(dir, "input")); err != nil || !ok {
			return err
		}
		cases = append(cases, dir)
		return nil
	})
	sort.Strings(cases)
	return cases, err
}

func onlyIngressKinds(input string) (bool, error) {
	only := true
	err := filepath.WalkDir(input, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !only {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		kinds, err := kindsIn(b, strings.HasSuffix(path, ".json"))
		if err != nil {
			// Unparseable input is a case for the bad-input tests, not this one.
			only = false
			return nil
		}
		for _, k := range kinds {
			only = only && ingressKinds[k]
		}
		return nil
	})
	return only, err
}

// kindsIn returns the kinds of the objects in a manifest file, looking into
// List objects.
func kindsIn(b []byte, isJSON bool) ([]string, error) {
	var docs []any
	if isJSON {
		dec := json.NewDecoder(bytes.NewReader(b))
		for {
			var doc any
			if err := dec.Decode(&doc); err == io.EOF {
				break
			} else if err != nil {
				return nil, err
			}
			docs = append(docs, doc)
		}
	} else {
		dec := yamlv3.NewDecoder(bytes.NewReader(b))
		for {
			var doc any
			if err := dec.Decode(&doc); err == io.EOF {
				break
			} else if err != nil {
				return nil, err
			}
			docs = append(docs, doc)
		}
	}
	var kinds []string
	var collect func(v any)
	collect = func(v any) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		kind, _ := m["kind"].(string)
		if items, ok := m["items"].([]any); ok && strings.HasSuffix(kind, "List") {
			for _, it := range items {
				collect(it)
			}
			return
		}
		kinds = append(kinds, kind)
	}
	for _, d := range docs {
		collect(d)
	}
	return kinds, nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
