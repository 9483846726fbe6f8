package main

// Tests of diff --base-ref on throwaway Git repositories.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo is a throwaway repository for tests.
type gitRepo struct {
	t   *testing.T
	dir string
}

// newGitRepo creates a repository, or skips the test without git.
func newGitRepo(t *testing.T) *gitRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	r := &gitRepo{t: t, dir: t.TempDir()}
	r.git("init", "-q")
	return r
}

func (r *gitRepo) git(args ...string) {
	r.t.Helper()
	// Identity and configuration of the machine running the tests must
	// not matter.
	cmd := exec.Command("git", append([]string{"-c", "user.name=test", "-c", "user.email=test@example.com",
		"-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	if out, err := cmd.CombinedOutput(); err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// copyDir copies the files of src into dst/rel (no subdirectories).
func (r *gitRepo) copyDir(src, rel string) {
	r.t.Helper()
	dst := filepath.Join(r.dir, rel)
	if err := os.RemoveAll(dst); err != nil {
		r.t.Fatal(err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		r.t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		r.t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			r.t.Fatal(err)
		}
		r.write(filepath.Join(rel, e.Name()), string(b))
	}
}

func (r *gitRepo) write(rel, content string) {
	r.t.Helper()
	path := filepath.Join(r.dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *gitRepo) commit() {
	r.t.Helper()
	r.git("add", "-A")
	r.git("commit", "-q", "-m", "test")
}

// weightRepo commits the old side of the route-weight case under
// deploy/app (a subdirectory) and puts the new side in the working tree.
func weightRepo(t *testing.T) *gitRepo {
	r := newGitRepo(t)
	r.copyDir(filepath.Join(diffCasesDir, "route-weight", "old"), "deploy/app")
	r.write("README", "not a manifest\n")
	r.commit()
	r.copyDir(filepath.Join(diffCasesDir, "route-weight", "new"), "deploy/app")
	return r
}

// TestDiffBaseRef checks that --base-ref compares the committed manifests
// with the working tree exactly as diff compares two directories.
func TestDiffBaseRef(t *testing.T) {
	r := weightRepo(t)
	want := runDiffCase(t, "route-weight", "json").stdout
	for _, path := range []string{
		filepath.Join(r.dir, "deploy"),
		filepath.Join(r.dir, "deploy", "app"),
		r.dir,
	} {
		got := runCLI(t, "", "diff", "-o", "json", "--base-ref", "HEAD", path)
		got.wantExit(t, exitFindings)
		if got.stdout != want {
			t.Errorf("diff --base-ref HEAD %s:\n%s\nwant\n%s", path, got.stdout, want)
		}
	}

	// Files given one by one.
	files := []string{filepath.Join(r.dir, "deploy", "app", "proxy.yaml"), filepath.Join(r.dir, "deploy", "app", "services.yaml")}
	got := runCLI(t, "", append([]string{"diff", "-o", "json", "--base-ref", "HEAD"}, files...)...)
	got.wantExit(t, exitFindings)
	if got.stdout != want {
		t.Errorf("diff --base-ref HEAD on files:\n%s", got.stdout)
	}

	// Nothing changed since the revision.
	r.commit()
	got = runCLI(t, "", "diff", "--base-ref", "HEAD", filepath.Join(r.dir, "deploy"))
	got.wantExit(t, exitOK)
	if got.stdout != "" {
		t.Errorf("no change since HEAD, but diff printed:\n%s", got.stdout)
	}
}

// TestDiffBaseRefUnified checks the labels of the unified diff: the old
// side is named the way git names a file at a revision.
func TestDiffBaseRefUnified(t *testing.T) {
	r := weightRepo(t)
	path := filepath.Join(r.dir, "deploy")
	got := runCLI(t, "", "diff", "-o", "unified", "--base-ref", "HEAD", path)
	got.wantExit(t, exitFindings)
	if want := "--- HEAD:deploy\n+++ " + path + "\n"; !strings.HasPrefix(got.stdout, want) {
		t.Errorf("unified diff starts\n%.200s\nwant\n%s", got.stdout, want)
	}
}

// TestDiffBaseRefNewPath checks that a directory the revision does not
// have yet is an empty old side: everything in it is added.
func TestDiffBaseRefNewPath(t *testing.T) {
	r := newGitRepo(t)
	r.write("README", "x\n")
	r.commit()
	r.copyDir(filepath.Join(diffCasesDir, "route-weight", "new"), "deploy")
	got := runCLI(t, "", "diff", "--base-ref", "HEAD", filepath.Join(r.dir, "deploy"))
	got.wantExit(t, exitFindings)
	if !strings.Contains(got.stdout, "+ ingress_http app.example.com") {
		t.Errorf("the new virtual host is not shown as added:\n%s", got.stdout)
	}
}

// TestDiffBaseRefErrors checks that a bad revision, a path outside any
// repository and invalid manifests at the revision are errors, the last
// named as git names files at a revision.
func TestDiffBaseRefErrors(t *testing.T) {
	r := weightRepo(t)
	deploy := filepath.Join(r.dir, "deploy")

	got := runCLI(t, "", "diff", "--base-ref", "no-such-branch", deploy)
	got.wantExit(t, exitFailure)
	if !strings.Contains(got.stderr, `--base-ref no-such-branch: "no-such-branch" is not a commit`) {
		t.Errorf("bad revision: stderr\n%s", got.stderr)
	}

	outside := t.TempDir()
	got = runCLI(t, "", "diff", "--base-ref", "HEAD", outside)
	got.wantExit(t, exitFailure)
	if !strings.Contains(got.stderr, "--base-ref HEAD: "+outside) {
		t.Errorf("path outside a repository: stderr\n%s", got.stderr)
	}

	got = runCLI(t, "", "diff", "--base-ref", "HEAD", "-")
	got.wantExit(t, exitFailure)

	r.write("deploy/app/proxy.yaml", "apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata:\n  name: app\n  namespace: default\nspec:\n  virtualhost: [\n")
	r.commit()
	r.copyDir(filepath.Join(diffCasesDir, "route-weight", "new"), "deploy/app")
	got = runCLI(t, "", "diff", "--base-ref", "HEAD", deploy)
	got.wantExit(t, exitFailure)
	if !strings.Contains(got.stderr, "old: HEAD:deploy/app/proxy.yaml:") || strings.Contains(got.stderr, os.TempDir()+string(filepath.Separator)+"contourc-diff-") {
		t.Errorf("invalid manifest at the revision: stderr does not name HEAD:deploy/app/proxy.yaml:\n%s", got.stderr)
	}
	if got.stdout != "" {
		t.Errorf("stdout = %q, want nothing", got.stdout)
	}
}
