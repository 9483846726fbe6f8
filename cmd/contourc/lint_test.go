package main

// End-to-end tests of contourc lint and check --lint: each output format
// against a golden file, exit codes, suppression by flag and config file.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var lintSample = filepath.Join("testdata", "lint", "sample")

// inRepoRoot runs the test from the repository root, so that the paths
// in the goldens are relative ones, as a CI job gives them.
func inRepoRoot(t *testing.T) {
	t.Helper()
	t.Chdir(repoRoot)
}

func TestLintGoldens(t *testing.T) {
	inRepoRoot(t)
	for _, format := range []string{"table", "json", "github", "sarif"} {
		t.Run(format, func(t *testing.T) {
			got := runCLI(t, "", "lint", "-o", format, "--now", "2026-06-01T00:00:00Z", lintSample)
			got.wantExit(t, exitFindings)
			if !strings.Contains(got.stderr, "4 lint finding(s) at or above error") {
				t.Errorf("stderr %q", got.stderr)
			}
			goldenFile(t, filepath.Join("testdata", "lint", "golden."+format), []byte(got.stdout))
		})
	}
}

func TestLintExitCodes(t *testing.T) {
	inRepoRoot(t)
	errorRules := "CTC1001,CTC1101,CTC1301"
	for _, c := range []struct {
		name string
		args []string
		code int
	}{
		{"errors fail by default", nil, exitFindings},
		{"none never fails", []string{"--fail-on", "none"}, exitOK},
		{"warnings do not fail at error", []string{"--disable", errorRules}, exitOK},
		{"warnings fail at warning", []string{"--disable", errorRules, "--fail-on", "warning"}, exitFindings},
		{"everything disabled", []string{"--disable", errorRules + ",CTC1303,CTC1401", "--fail-on", "info"}, exitOK},
		{"an unknown rule", []string{"--disable", "CTC9999"}, exitFailure},
		{"a bad --fail-on", []string{"--fail-on", "fatal"}, exitFailure},
		{"a bad --now", []string{"--now", "yesterday"}, exitFailure},
		{"a bad format", []string{"-o", "xml"}, exitFailure},
	} {
		t.Run(c.name, func(t *testing.T) {
			runCLI(t, "", append(append([]string{"lint"}, c.args...), lintSample)...).wantExit(t, c.code)
		})
	}
	t.Run("unreadable input", func(t *testing.T) {
		got := runCLI(t, "kind: [", "lint", "-")
		got.wantExit(t, exitFailure)
		if got.stdout != "" {
			t.Errorf("stdout %q, want nothing", got.stdout)
		}
	})
	t.Run("no findings", func(t *testing.T) {
		got := runCLI(t, serviceWithoutEndpoints, "lint", "-")
		got.wantExit(t, exitOK)
		if got.stdout != "" || !strings.Contains(got.stderr, "no lint findings") {
			t.Errorf("stdout %q stderr %q", got.stdout, got.stderr)
		}
	})
}

// TestLintDeterministic: the same findings whatever the order of the files.
func TestLintDeterministic(t *testing.T) {
	inRepoRoot(t)
	files := []string{"services.yaml", "proxy.yaml", "ingress.yaml"}
	var outs []string
	for _, order := range [][]int{{0, 1, 2}, {2, 1, 0}, {1, 2, 0}} {
		args := []string{"lint", "-o", "json", "--fail-on", "none"}
		for _, i := range order {
			args = append(args, filepath.Join(lintSample, files[i]))
		}
		outs = append(outs, runCLI(t, "", args...).stdout)
	}
	if outs[0] != outs[1] || outs[0] != outs[2] {
		t.Errorf("output depends on the order of the files:\n%s\n%s", outs[0], outs[1])
	}
}

func TestLintRepoConfig(t *testing.T) {
	inRepoRoot(t)
	cfg := filepath.Join(t.TempDir(), ".contourc.yaml")
	if err := os.WriteFile(cfg, []byte("lint:\n  disable: [CTC1001, CTC1101, CTC1301]\n  certExpiryDays: 30\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := runCLI(t, "", "lint", "--config", cfg, "-o", "json", lintSample)
	got.wantExit(t, exitOK)
	var findings []struct{ Rule string }
	if err := json.Unmarshal([]byte(got.stdout), &findings); err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		if f.Rule == "CTC1001" || f.Rule == "CTC1101" || f.Rule == "CTC1301" {
			t.Errorf("%s reported though the config file disables it", f.Rule)
		}
	}
	if len(findings) != 3 {
		t.Errorf("%d findings, want the 3 warnings", len(findings))
	}
	// The command line's list wins over the file's, as for every flag.
	got = runCLI(t, "", "lint", "--config", cfg, "--disable", "CTC1401,CTC1303", "--fail-on", "info", lintSample)
	got.wantExit(t, exitFindings)
	if !strings.Contains(got.stderr, "4 lint finding(s)") {
		t.Errorf("stderr %q, want the 4 errors the file disabled", got.stderr)
	}
	bad := filepath.Join(t.TempDir(), ".contourc.yaml")
	if err := os.WriteFile(bad, []byte("lint:\n  disabled: [CTC1001]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := runCLI(t, "", "lint", "--config", bad, lintSample); got.code != exitFailure || !strings.Contains(got.stderr, `unknown field "lint.disabled"`) {
		t.Errorf("exit %d, stderr %q", got.code, got.stderr)
	}
}

func TestCheckLint(t *testing.T) {
	inRepoRoot(t)
	t.Run("table", func(t *testing.T) {
		got := runCLI(t, "", "check", "--lint", "--now", "2026-06-01T00:00:00Z", lintSample)
		got.wantExit(t, exitFindings)
		goldenFile(t, filepath.Join("testdata", "lint", "check.table"), []byte(got.stdout))
	})
	t.Run("json", func(t *testing.T) {
		got := runCLI(t, "", "check", "--lint", "-o", "json", lintSample)
		var out struct {
			Status []map[string]any
			Lint   []map[string]any
		}
		if err := json.Unmarshal([]byte(got.stdout), &out); err != nil {
			t.Fatal(err)
		}
		if len(out.Status) == 0 || len(out.Lint) != 7 {
			t.Errorf("%d statuses, %d lint findings, want some and 7", len(out.Status), len(out.Lint))
		}
	})
	t.Run("github and yaml", func(t *testing.T) {
		got := runCLI(t, "", "check", "--lint", "-o", "github", lintSample)
		for _, want := range []string{"title=HTTPProxy shop/api is invalid::", "title=CTC1001 HTTPProxy shop/shop::", "::warning file=testdata/lint/sample/ingress.yaml,line=1,title=CTC1401"} {
			if !strings.Contains(got.stdout, want) {
				t.Errorf("github output lacks %q:\n%s", want, got.stdout)
			}
		}
		got = runCLI(t, "", "check", "--lint", "-o", "yaml", lintSample)
		if !strings.HasPrefix(got.stdout, "lint:\n- file: testdata/lint/sample/ingress.yaml\n") || !strings.Contains(got.stdout, "\nstatus:\n- apiVersion: projectcontour.io/v1\n") {
			t.Errorf("yaml output:\n%s", got.stdout)
		}
	})
	t.Run("without --lint, check is as before", func(t *testing.T) {
		got := runCLI(t, "", "check", "-o", "json", lintSample)
		if !strings.HasPrefix(got.stdout, "[") {
			t.Errorf("stdout %.40q, want check's list", got.stdout)
		}
	})
	t.Run("lint errors fail check", func(t *testing.T) {
		got := runCLI(t, "", "check", "--lint", "--disable", "CTC1001,CTC1101,CTC1301,CTC1303,CTC1401", lintSample)
		got.wantExit(t, exitFindings) // shop/api is invalid itself (port 8081)
		runCLI(t, serviceWithoutEndpoints, "check", "--lint", "-").wantExit(t, exitOK)
		got = runCLI(t, "", "check", "--lint", "--disable", "CTC1001,CTC1101,CTC1301", "-o", "json", lintSample)
		if !strings.Contains(got.stderr, "not valid") || strings.Contains(got.stderr, "lint finding") {
			t.Errorf("stderr %q: want the invalid object, and no lint error", got.stderr)
		}
	})
}
