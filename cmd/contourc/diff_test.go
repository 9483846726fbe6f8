package main

// Tests of contourc diff. Golden cases live in testdata/diff/<case>/: old/
// and new/ hold the two versions of the manifests, an optional args file
// extra flags, and expected.<format> what each output format prints.
// Rewrite the expected files with `go test ./cmd/contourc -run DiffGolden
// -update`, then review them.

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/contourc/contourc/diff"
)

var diffCasesDir = filepath.Join(repoRoot, "testdata", "diff")

// diffGoldenFiles are the expected outputs of a case, by -o value.
var diffGoldenFiles = map[string]string{
	"text":     "expected.txt",
	"markdown": "expected.md",
	"json":     "expected.json",
	"unified":  "expected.unified.diff",
}

// diffCases lists the case directories under testdata/diff.
func diffCases(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(diffCasesDir)
	if err != nil {
		t.Fatal(err)
	}
	var cases []string
	for _, e := range entries {
		if e.IsDir() {
			cases = append(cases, e.Name())
		}
	}
	if len(cases) == 0 {
		t.Fatalf("no diff cases under %s", diffCasesDir)
	}
	return cases
}

// runDiffCase runs diff on one case in one format and insists that it
// found changes: every case changes something.
func runDiffCase(t *testing.T, name, format string) cli {
	t.Helper()
	dir := filepath.Join(diffCasesDir, name)
	args := append([]string{"diff", "-o", format}, goldenCaseArgs(t, dir)...)
	got := runCLI(t, "", append(args, filepath.Join(dir, "old"), filepath.Join(dir, "new"))...)
	got.wantExit(t, exitFindings)
	if got.stdout == "" {
		t.Fatalf("diff -o %s printed nothing", format)
	}
	return got
}

func TestDiffGolden(t *testing.T) {
	for _, name := range diffCases(t) {
		for format, file := range diffGoldenFiles {
			t.Run(name+"/"+format, func(t *testing.T) {
				got := runDiffCase(t, name, format)
				goldenFile(t, filepath.Join(diffCasesDir, name, file), []byte(got.stdout))
			})
		}
	}
}

// diffReport runs diff -o json on a case and decodes the report.
func diffReport(t *testing.T, name string) diff.Report {
	t.Helper()
	var r diff.Report
	if err := json.Unmarshal([]byte(runDiffCase(t, name, "json").stdout), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// onlyChanges fails unless the report has changes of the named kinds only.
func onlyChanges(t *testing.T, r diff.Report, kinds ...string) {
	t.Helper()
	counts := map[string]int{
		"listeners": len(r.Listeners), "virtualHosts": len(r.VirtualHosts), "clusters": len(r.Clusters),
		"endpoints": len(r.Endpoints), "secrets": len(r.Secrets), "runtimes": len(r.Runtimes), "status": len(r.Status),
	}
	for _, k := range kinds {
		if counts[k] == 0 {
			t.Errorf("no %s change", k)
		}
		delete(counts, k)
	}
	for k, n := range counts {
		if n > 0 {
			t.Errorf("%d unexpected %s change(s)", n, k)
		}
	}
}

// TestDiffOneWeight is the acceptance test: changing one route
// weight shows exactly that change and nothing else.
func TestDiffOneWeight(t *testing.T) {
	r := diffReport(t, "route-weight")
	onlyChanges(t, r, "virtualHosts")
	if len(r.VirtualHosts) != 1 || len(r.VirtualHosts[0].Routes) != 1 {
		t.Fatalf("want one route changed in one virtual host, got %+v", r.VirtualHosts)
	}
	vh := r.VirtualHosts[0]
	if vh.Listener != "ingress_http" || vh.VirtualHost != "app.example.com" || len(vh.Fields) != 0 || vh.OrderChanged {
		t.Errorf("virtual host change = %+v", vh)
	}
	rt := vh.Routes[0]
	want := []diff.FieldChange{{Path: "route.weighted_clusters.clusters[default/app/80/da39a3ee5e].weight", Old: "90", New: "80"}}
	if rt.Op != diff.Changed || rt.Match != "prefix /" || len(rt.Fields) != 1 || rt.Fields[0] != want[0] {
		t.Errorf("route change = %+v, want only %+v", rt, want)
	}
}

// TestDiffChangeKinds checks each case reports its kind of change where it
// belongs, whatever the exact wording of the goldens.
func TestDiffChangeKinds(t *testing.T) {
	t.Run("routes added and removed", func(t *testing.T) {
		r := diffReport(t, "route-added-removed")
		// The new route's Service brings its cluster and endpoints.
		onlyChanges(t, r, "virtualHosts", "clusters", "endpoints")
		ops := map[string]diff.Op{}
		for _, rt := range r.VirtualHosts[0].Routes {
			ops[rt.Match] = rt.Op
		}
		want := map[string]diff.Op{"prefix /old": diff.Removed, "exact /healthz": diff.Added, "prefix /new, header x-beta present": diff.Added}
		for m, op := range want {
			if ops[m] != op {
				t.Errorf("route %q: %q, want %q (all: %v)", m, ops[m], op, ops)
			}
		}
		if len(ops) != len(want) {
			t.Errorf("routes changed: %v, want %v", ops, want)
		}
	})
	t.Run("redirect", func(t *testing.T) {
		r := diffReport(t, "route-redirect")
		onlyChanges(t, r, "virtualHosts")
		for _, rt := range r.VirtualHosts[0].Routes {
			if !strings.HasPrefix(rt.Action, "redirect 301 to ") {
				t.Errorf("route %q → %q, want a 301 redirect", rt.Match, rt.Action)
			}
		}
	})
	t.Run("direct response", func(t *testing.T) {
		r := diffReport(t, "route-direct-response")
		onlyChanges(t, r, "virtualHosts")
		rt := r.VirtualHosts[0].Routes[0]
		if rt.OldAction != `respond 503 "down for maintenance"` || rt.Action != `respond 200 "all systems go"` {
			t.Errorf("route %+v", rt)
		}
	})
	t.Run("header policy", func(t *testing.T) {
		r := diffReport(t, "route-header-policy")
		onlyChanges(t, r, "virtualHosts")
		if got := r.VirtualHosts[0].Routes[0].Action; !strings.Contains(got, "X-Env: production") || !strings.Contains(got, "remove response header Server") {
			t.Errorf("action %q does not show the new header policy", got)
		}
	})
	t.Run("cluster settings", func(t *testing.T) {
		r := diffReport(t, "cluster-settings")
		// The renamed cluster is paired, so routes pointing at it do not
		// change.
		onlyChanges(t, r, "clusters")
		renamed := 0
		for _, c := range r.Clusters {
			if c.Op != diff.Changed || len(c.Fields) != 1 {
				t.Errorf("cluster change %+v, want one field changed", c)
			}
			if c.OldName != "" {
				renamed++
			}
		}
		if renamed != 1 {
			t.Errorf("%d renamed clusters, want 1", renamed)
		}
	})
	t.Run("endpoint count", func(t *testing.T) {
		r := diffReport(t, "endpoint-count")
		onlyChanges(t, r, "endpoints")
		e := r.Endpoints[0]
		if e.OldCount != 2 || e.NewCount != 3 || len(e.Added) != 2 || len(e.Removed) != 1 {
			t.Errorf("endpoints change %+v", e)
		}
	})
	t.Run("TLS rotation", func(t *testing.T) {
		r := diffReport(t, "tls-rotation")
		// The listener's reference to the renamed secret is not a change.
		onlyChanges(t, r, "secrets")
		s := r.Secrets[0]
		if s.Op != diff.Changed || s.OldName == "" || s.Old == nil || s.New == nil || s.Old.SHA256 == s.New.SHA256 ||
			s.Old.Subject != "CN=app.example.com" || !s.New.NotAfter.After(s.Old.NotAfter) {
			t.Errorf("secret change %+v", s)
		}
	})
	t.Run("private key only", func(t *testing.T) {
		r := diffReport(t, "private-key-only")
		onlyChanges(t, r, "secrets")
		s := r.Secrets[0]
		if s.Op != diff.Changed || s.OldName != "" || s.Old == nil || s.New == nil || s.Old.SHA256 != s.New.SHA256 {
			t.Errorf("secret change %+v, want the same certificate under the same name", s)
		}
		if s.OldKey == nil || s.NewKey == nil || len(s.OldKey.PublicKeySHA256) != 64 || len(s.NewKey.PublicKeySHA256) != 64 ||
			s.OldKey.PublicKeySHA256 == s.NewKey.PublicKeySHA256 || !s.OldKey.MatchesCertificate || s.NewKey.MatchesCertificate {
			t.Errorf("key change old %+v new %+v, want two public keys, the new one not the certificate's", s.OldKey, s.NewKey)
		}
		text := runDiffCase(t, "private-key-only", "text").stdout
		if !strings.Contains(text, "private key changed: public key sha256:"+s.OldKey.PublicKeySHA256[:16]) {
			t.Errorf("text output does not say the private key changed:\n%s", text)
		}
		// The unified diff shows the key change as its public key.
		unified := runDiffCase(t, "private-key-only", "unified").stdout
		for _, k := range []*diff.KeyInfo{s.OldKey, s.NewKey} {
			if !strings.Contains(unified, "private key of public key sha256:"+k.PublicKeySHA256[:16]) {
				t.Errorf("unified output does not show public key %s:\n%s", k.PublicKeySHA256[:16], unified)
			}
		}
	})
	t.Run("status", func(t *testing.T) {
		r := diffReport(t, "status-invalid-recover")
		changes := map[string]diff.StatusOp{}
		for _, st := range r.Status {
			changes[st.Name] = st.Change
			if !strings.Contains(st.Source, "status-invalid-recover") || !strings.Contains(st.Source, ".yaml:") {
				t.Errorf("status change of %s has source %q, want file:line", st.Name, st.Source)
			}
		}
		want := map[string]diff.StatusOp{"shop": diff.BecameInvalid, "child": diff.BecameInvalid, "blog": diff.Recovered}
		if len(changes) != len(want) {
			t.Errorf("status changes %v, want %v", changes, want)
		}
		for n, c := range want {
			if changes[n] != c {
				t.Errorf("%s: %q, want %q", n, changes[n], c)
			}
		}
	})
}

// TestDiffSameInputIsEmpty diffs every case of the conformance corpus
// with itself, with the case's flags: nothing may change, in any format.
func TestDiffSameInputIsEmpty(t *testing.T) {
	if _, err := os.Stat(conformanceDir); err != nil {
		t.Skipf("no conformance corpus at %s: %v", conformanceDir, err)
	}
	cases, err := selfDiffCases(conformanceDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatalf("no case under %s", conformanceDir)
	}
	for _, dir := range cases {
		name, _ := filepath.Rel(conformanceDir, dir)
		t.Run(name, func(t *testing.T) {
			args, err := caseArgs(dir)
			if err != nil {
				t.Fatal(err)
			}
			input := filepath.Join(dir, "input")
			for _, format := range []string{"text", "unified"} {
				got := runCLI(t, "", append(append([]string{"diff", "-o", format}, args...), input, input)...)
				if got.code == exitFailure {
					// Input contourc refuses (a known gap) fails render too;
					// anything else is a bug of diff.
					if runCLI(t, "", append(append([]string{"render", "-o", "json"}, args...), input)...).code == exitFailure {
						t.Skipf("render refuses the input too:\n%s", got.stderr)
					}
				}
				got.wantExit(t, exitOK)
				if got.stdout != "" {
					t.Errorf("diff -o %s of a case with itself printed:\n%s", format, got.stdout)
				}
			}
		})
	}
}

// selfDiffCases lists the case directories under root, except those whose
// input the API server refuses and those that need --config-path.
func selfDiffCases(root string) ([]string, error) {
	var cases []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || d.Name() != "input" {
			return err
		}
		dir := filepath.Dir(path)
		if fileExists(filepath.Join(dir, "REJECTED")) {
			return filepath.SkipDir
		}
		args, err := caseArgs(dir)
		if err != nil {
			return err
		}
		for _, a := range args {
			if a == "--config-path" || strings.HasPrefix(a, "--config-path=") {
				return filepath.SkipDir
			}
		}
		cases = append(cases, dir)
		return filepath.SkipDir
	})
	sort.Strings(cases)
	return cases, err
}

func TestDiffNoChange(t *testing.T) {
	dir := filepath.Join(diffCasesDir, "route-weight", "old")
	want := map[string]string{
		"text":     "",
		"unified":  "",
		"markdown": "### contourc diff\n\nNo change to the Envoy configuration or to the status of any object.\n",
	}
	for format, out := range want {
		got := runCLI(t, "", "diff", "-o", format, dir, dir)
		got.wantExit(t, exitOK)
		if got.stdout != out || got.stderr != "" {
			t.Errorf("-o %s: stdout %q, stderr %q; want stdout %q", format, got.stdout, got.stderr, out)
		}
	}
	got := runCLI(t, "", "diff", "-o", "json", dir, dir)
	got.wantExit(t, exitOK)
	var r struct {
		Changed  bool
		Clusters []any
	}
	if err := json.Unmarshal([]byte(got.stdout), &r); err != nil || r.Changed || r.Clusters == nil {
		t.Errorf("-o json: %v, changed %v, clusters %v (want false and [])\n%s", err, r.Changed, r.Clusters, got.stdout)
	}
}

func TestDiffUsageErrors(t *testing.T) {
	dir := filepath.Join(diffCasesDir, "route-weight", "old")
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no paths", []string{"diff"}, "diff needs two paths, OLD and NEW"},
		{"one path", []string{"diff", dir}, "diff needs two paths, OLD and NEW"},
		{"three paths", []string{"diff", dir, dir, dir}, "diff needs two paths, OLD and NEW"},
		{"base-ref without path", []string{"diff", "--base-ref", "HEAD"}, "diff --base-ref needs at least one PATH"},
		{"both sides on stdin", []string{"diff", "-", "-"}, "only one side from stdin"},
		{"unknown format", []string{"diff", "-o", "yaml", dir, dir}, `invalid --output-format "yaml": want text, markdown, json, unified`},
		{"unknown colour", []string{"diff", "--color", "sometimes", dir, dir}, `invalid --color "sometimes"`},
		{"bad gateway flag", []string{"diff", "--gateway", "gw", dir, dir}, `--gateway "gw": want NAMESPACE/NAME`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runCLI(t, "", tt.args...)
			got.wantExit(t, exitFailure)
			if got.stdout != "" {
				t.Errorf("stdout = %q, want nothing", got.stdout)
			}
			if !strings.Contains(got.stderr, tt.stderr) || !strings.Contains(got.stderr, "--help' for usage") {
				t.Errorf("stderr does not contain %q and a pointer to --help:\n%s", tt.stderr, got.stderr)
			}
		})
	}
}

// TestDiffInvalidInput checks that input either side cannot load is an
// error naming the side, file and line, with nothing on stdout.
func TestDiffInvalidInput(t *testing.T) {
	good := filepath.Join(diffCasesDir, "route-weight", "old")
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("apiVersion: v1\nkind: Service\nmetadata:\n  name: x\n  bogus: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		side     string
		old, new string
	}{{"old", bad, good}, {"new", good, bad}} {
		got := runCLI(t, "", "diff", tt.old, tt.new)
		got.wantExit(t, exitFailure)
		if want := tt.side + ": " + bad + ":"; !strings.Contains(got.stderr, want) {
			t.Errorf("%s side invalid: stderr does not name %q:\n%s", tt.side, want, got.stderr)
		}
		if got.stdout != "" {
			t.Errorf("stdout = %q, want nothing", got.stdout)
		}
	}
}

func TestDiffColour(t *testing.T) {
	dir := filepath.Join(diffCasesDir, "route-weight")
	old, new := filepath.Join(dir, "old"), filepath.Join(dir, "new")
	for _, tt := range []struct {
		flag   string
		colour bool
	}{{"always", true}, {"never", false}, {"auto", false}} { // auto: a buffer is not a terminal
		got := runCLI(t, "", "diff", "--color", tt.flag, old, new)
		got.wantExit(t, exitFindings)
		if strings.Contains(got.stdout, "\x1b[") != tt.colour {
			t.Errorf("--color %s: colour %v, want %v:\n%q", tt.flag, !tt.colour, tt.colour, got.stdout)
		}
		// Colour only wraps lines: without the escapes the text is the same.
		plain := strings.NewReplacer("\x1b[0m", "", "\x1b[1m", "", "\x1b[31m", "", "\x1b[32m", "", "\x1b[33m", "").Replace(got.stdout)
		if want := runDiffCase(t, "route-weight", "text").stdout; plain != want {
			t.Errorf("--color %s changes the text:\n%s", tt.flag, plain)
		}
	}
}
