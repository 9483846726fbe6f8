package main

// End-to-end tests of following Argo CD Applications on the sample
// app-of-apps repository of testdata/gitops/argocd: a root Application
// holding the others (itself among them), a kustomize source with
// namePrefix and namespace, a directory source with include and exclude,
// a local chart with values files (a multi-source Application with a ref
// source), an Application of another repository, and an ApplicationSet.
// Goldens are testdata/cli/gitops/argocd-*.txt (rewrite with -update).

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contourc/contourc/cmd/contourc/internal/repoconfig"
	"github.com/contourc/contourc/internal/testfs"
)

var argocdRepo = filepath.Join(gitopsDir, "argocd")

func TestArgoCDAppOfApps(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		exit int
		says []string
	}{
		// Every routing object gets a verdict, in the namespace its
		// Application's destination gives it, with kustomize's namePrefix;
		// the directory source's excluded drafts are not read.
		{"argocd", []string{"check", "."}, exitOK, []string{
			"HTTPProxy  web/prod-web", "HTTPProxy  docs/docs-api",
			"contourc: 4 entry point(s) followed, 2 not followed; -v lists them",
		}},
		{"argocd-verbose", []string{"check", "-v", "."}, exitOK, []string{
			"followed: Application argocd/web -> workloads/web/base/ (2 objects)",
			"followed: Application argocd/docs -> workloads/docs/ (3 objects)",
			// The root reaches itself; it is followed once.
			"followed: Application argocd/root -> apps/ (6 objects)",
			"not followed: Application argocd/monitoring: repoURL https://github.com/example/monitoring.git is not this repository",
			"not followed: ApplicationSet argocd/previews: its Applications are made by the ApplicationSet controller",
			// A local chart, rendered with the Application's values.
			"followed: Application argocd/shop -> charts/shop/ (2 objects)",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var r cli
			t.Run("at the root", func(t *testing.T) {
				t.Chdir(argocdRepo) // as a user at the repository's root
				r = runCLI(t, "", c.args...)
			})
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
			for _, s := range []string{"docs-draft", "docs-test", "docs-notes"} {
				if strings.Contains(r.stdout, s) {
					t.Errorf("%s, which the directory source leaves out, was read:\n%s", s, r.stdout)
				}
			}
		})
	}
}

// argoCheckout copies the sample repository, without its .contourc.yaml,
// into a Git checkout whose origin remote is origin, and makes it the
// current directory.
func argoCheckout(t *testing.T, origin string) string {
	t.Helper()
	dir := t.TempDir()
	err := filepath.WalkDir(argocdRepo, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == repoconfig.Name {
			return err
		}
		rel, _ := filepath.Rel(argocdRepo, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		testfs.Write(t, dir, map[string]string{rel: string(data)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	testfs.Write(t, dir, map[string]string{
		".git/HEAD":   "ref: refs/heads/main\n",
		".git/config": "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = " + origin + "\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n",
	})
	t.Chdir(dir)
	return dir
}

// The Applications naming the checkout's origin remote are followed,
// whichever form of its URL they use (the root's git@ form, web's https
// without .git, docs' with it).
func TestArgoCDOriginRemote(t *testing.T) {
	argoCheckout(t, "https://github.com/example/platform.git")
	r := runCLI(t, "", "check", "-v", ".")
	r.wantExit(t, exitOK)
	for _, s := range []string{
		"followed: Application argocd/root -> apps/",
		"followed: Application argocd/web -> workloads/web/base/",
		"followed: Application argocd/docs -> workloads/docs/",
		"HTTPProxy  web/prod-web    apps/web.yaml:1 Application argocd/web → workloads/web/base/proxy.yaml:1",
	} {
		if !strings.Contains(r.stdout+r.stderr, s) {
			t.Errorf("output does not say %q:\n%s%s", s, r.stdout, r.stderr)
		}
	}
}

// A checkout whose origin is another URL (a mirror) follows nothing until
// --argocd-repo names the URL the Applications use.
func TestArgoCDRepoFlag(t *testing.T) {
	argoCheckout(t, "https://git.internal.example/mirrors/platform.git")
	r := runCLI(t, "", "check", "-v", ".")
	// Read as they lie, the workloads have no namespace and name Services
	// that only the kustomize source's namePrefix makes.
	r.wantExit(t, exitFindings)
	if want := "not followed: Application argocd/web: repoURL https://github.com/example/platform is not this repository"; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr does not say %q:\n%s", want, r.stderr)
	}
	if strings.Contains(r.stdout, "HTTPProxy  web/prod-web") {
		t.Errorf("an Application of another repository was followed:\n%s", r.stdout)
	}
	if want := "not followed: ApplicationSet argocd/previews"; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr does not say %q:\n%s", want, r.stderr)
	}
	r = runCLI(t, "", "check", "-v", "--argocd-repo", "git@github.com:example/platform", ".")
	r.wantExit(t, exitOK)
	if want := "followed: Application argocd/web -> workloads/web/base/ (2 objects)"; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr does not say %q:\n%s", want, r.stderr)
	}
}
