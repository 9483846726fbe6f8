package main

// End-to-end tests of reading GitOps repositories as they stand: files
// that are not manifests, --exclude, -n and Flux variables, on the small
// repositories of testdata/gitops. Each case's exit code, stdout and
// stderr are compared with testdata/cli/gitops/<case>.txt (rewrite with
// -update, then review).

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/contourc/contourc/loader"
)

var gitopsDir = filepath.Join(repoRoot, "testdata", "gitops")

// timings are the phase durations -v prints, which vary from run to run.
var timings = regexp.MustCompile(`in [0-9.]+(ns|µs|ms|s)\b`)

func TestGitOpsRepositories(t *testing.T) {
	repo := func(name string) string { return filepath.Join(gitopsDir, name) }
	vars := func(name string) string { return filepath.Join(gitopsDir, "flux-vars", name) }
	for _, c := range []struct {
		name string
		args []string
		exit int
		// says are substrings the output must hold, beyond the golden
		// file: what the case is about.
		says []string
	}{
		{"helm-and-config", []string{"check", repo("helm-and-config")}, exitOK,
			[]string{"contourc: 6 file(s) skipped: not Kubernetes objects (3), Helm chart (3); -v lists them\n"}},
		{"helm-and-config-verbose", []string{"check", "-v", repo("helm-and-config")}, exitOK,
			[]string{"(3 files): Helm chart", "contour.json: not Kubernetes objects (line 1: no apiVersion and kind)"}},
		{"helm-and-config-render", []string{"render", "-o", "json", repo("helm-and-config")}, exitOK,
			[]string{"contourc: 6 file(s) skipped", `"web.example.com"`}},
		{"helm-and-config-exclude", []string{"check", "--exclude", "charts/", "--exclude", "*.json", "--exclude", "/apps/web/config", "--exclude", "Taskfile.yml", "-v", repo("helm-and-config")}, exitOK,
			[]string{"excluded", "charts/ (--exclude charts/)"}},
		{"namespaces-without-n", []string{"check", repo("namespaces")}, exitFindings,
			[]string{"include shop/cart not found"}},
		{"namespaces-with-n", []string{"check", "-n", "shop", "-o", "yaml", repo("namespaces")}, exitOK,
			[]string{"namespace: shop"}},
		{"namespaces-conflict", []string{"check", "--namespace", "web", repo("namespaces-conflict")}, exitFailure,
			[]string{`the namespace from the provided object "shop" does not match the namespace "web". You must pass '--namespace=shop' to perform this operation.`}},
		{"flux-unsubstituted", []string{"check", repo("flux")}, exitFailure,
			[]string{"hint: ${CLUSTER_DOMAIN} is a Flux variable; pass --substitute CLUSTER_DOMAIN=...", "hint: ${WEB_TIMEOUT} is a Flux variable"}},
		{"flux-substituted", []string{"render", "-o", "json", "--substitute-from", vars("cluster-vars.yaml"), "--substitute-from", vars("prod.env"), "--substitute", "WEB_TIMEOUT=5s", repo("flux")}, exitOK,
			// prod.env wins over cluster-vars.yaml, --substitute over both.
			[]string{`"web.example.com"`, `"timeout": "5s"`}},
		// An empty value takes ${WEB_TIMEOUT:=30s}'s default.
		{"flux-defaults", []string{"render", "-o", "json", "--substitute-from", vars("cluster-vars.yaml"), "--substitute", "WEB_TIMEOUT=", repo("flux")}, exitOK,
			[]string{`"web.staging.example.com"`, `"timeout": "30s"`}},
		{"flux-strict", []string{"check", "--substitute-strict", "--substitute", "WEB_TIMEOUT=5s", repo("flux")}, exitFailure,
			[]string{`proxy.yaml:8: envsubst error: variable substitution failed: variable not set (strict mode): "CLUSTER_DOMAIN"`}},
		// The loading flags reach every command that reads manifests.
		{"explain-with-n", []string{"explain", "--host", "shop.example.com", "--path", "/cart", "-n", "shop", repo("namespaces")}, exitOK,
			[]string{"HTTPProxy shop/cart"}},
		{"diff-with-n", []string{"diff", "-n", "web", repo("namespaces-conflict"), repo("namespaces-conflict")}, exitFailure,
			[]string{`old: ../../testdata/gitops/namespaces-conflict/proxy.yaml:5: HTTPProxy shop/root: the namespace from the provided object "shop"`}},
		{"usage-errors", []string{"check", "--exclude", "a[b", repo("flux")}, exitFailure,
			[]string{`--exclude "a[b": malformed pattern`, "Run 'contourc check --help' for usage."}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runCLI(t, "", c.args...)
			if r.code != c.exit {
				t.Errorf("exit code %d, want %d\nstderr:\n%s", r.code, c.exit, r.stderr)
			}
			got := fmt.Sprintf("$ contourc %s\nexit %d\n--- stdout\n%s--- stderr\n%s", strings.Join(c.args, " "), r.code, r.stdout, timings.ReplaceAllString(r.stderr, "in <took>"))
			golden(t, filepath.Join("gitops", c.name+".txt"), []byte(got))
			for _, s := range c.says {
				if !strings.Contains(r.stdout+r.stderr, s) {
					t.Errorf("output does not say %q:\n%s", s, got)
				}
			}
		})
	}
}

// TestSkipSummaryComesLast checks that the count of skipped files is the
// last line of stderr even when check ends with findings.
func TestSkipSummaryComesLast(t *testing.T) {
	r := runCLI(t, "", "check", filepath.Join(gitopsDir, "helm-and-config"), filepath.Join(gitopsDir, "namespaces"))
	r.wantExit(t, exitFindings)
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[len(lines)-1], "contourc: 6 file(s) skipped") || !strings.Contains(lines[len(lines)-2], "not valid") {
		t.Errorf("stderr does not end with the findings, then the skip summary:\n%s", r.stderr)
	}
}

// TestReadmeListsClusterScopedKinds checks that README's Namespaces
// section names every kind -n leaves without a namespace.
func TestReadmeListsClusterScopedKinds(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), "### Namespaces\n")
	section, _, _ = strings.Cut(section, "\n### ")
	section = strings.Join(strings.Fields(section), " ")
	_, section, _ = strings.Cut(section, "never get one:")
	for _, k := range loader.ClusterScopedKinds() {
		group, kind, ok := strings.Cut(k, "/")
		if !ok {
			group, kind = "", k
		}
		i := -1
		for _, end := range []string{",", ";", "."} {
			if i = strings.Index(section, " "+kind+end); i >= 0 {
				break
			}
		}
		if i < 0 || listedGroup(section[:i]) != group {
			t.Errorf("README's Namespaces section does not list %s", k)
		}
	}
}

// listedGroup is the last `group` of text, or "" when there is none.
func listedGroup(text string) string {
	end := strings.LastIndex(text, "`")
	if end < 0 {
		return ""
	}
	start := strings.LastIndex(text[:end], "`")
	return text[start+1 : end]
}
