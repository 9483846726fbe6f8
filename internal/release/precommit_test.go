package release

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// preCommitHook is one hook of .pre-commit-hooks.yaml, with the fields
// pre-commit requires (id, name, entry, language) and those contourc sets.
type preCommitHook struct {
	ID            string `yaml:"id"`
	Name          string `yaml:"name"`
	Description   string `yaml:"description"`
	Entry         string `yaml:"entry"`
	Language      string `yaml:"language"`
	Files         string `yaml:"files"`
	PassFilenames *bool  `yaml:"pass_filenames"`
}

func readPreCommitHooks(t *testing.T) map[string]preCommitHook {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var hooks []preCommitHook
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&hooks); err != nil {
		t.Fatalf(".pre-commit-hooks.yaml: %v", err)
	}
	byID := map[string]preCommitHook{}
	for _, h := range hooks {
		byID[h.ID] = h
	}
	return byID
}

func TestPreCommitHooks(t *testing.T) {
	hooks := readPreCommitHooks(t)
	for id, command := range map[string]string{"contourc-check": "check", "contourc-lint": "lint"} {
		h, ok := hooks[id]
		if !ok {
			t.Errorf(".pre-commit-hooks.yaml has no hook %s", id)
			continue
		}
		if h.Entry != "contourc "+command || h.Language != "golang" || h.Name == "" {
			t.Errorf("%s: entry %q, language %q, name %q: want `contourc %s`, golang, a name", id, h.Entry, h.Language, h.Name, command)
		}
		// The whole repository is read, so a reference into a file the
		// commit did not change still resolves.
		if h.PassFilenames == nil || *h.PassFilenames {
			t.Errorf("%s: pass_filenames must be false", id)
		}
		files, err := regexp.Compile(h.Files)
		if err != nil {
			t.Errorf("%s: files: %v", id, err)
			continue
		}
		for name, want := range map[string]bool{"manifests/app.yaml": true, "a.yml": true, "list.json": true, "main.go": false, "README.md": false, "yaml": false} {
			if files.MatchString(name) != want {
				t.Errorf("%s: files %q matches %s: %v, want %v", id, h.Files, name, !want, want)
			}
		}
	}
	if len(hooks) != 2 {
		t.Errorf("%d hooks, want contourc-check and contourc-lint", len(hooks))
	}
}

// TestPreCommitHookRuns runs each hook's entry as pre-commit would, in a
// repository whose .contourc.yaml names its manifests.
func TestPreCommitHookRuns(t *testing.T) {
	bin := dockerBuiltContourc(t)
	repo := t.TempDir()
	os.MkdirAll(filepath.Join(repo, "manifests"), 0o755)
	os.WriteFile(filepath.Join(repo, ".contourc.yaml"), []byte("paths: [manifests]\n"), 0o644)
	os.WriteFile(filepath.Join(repo, "manifests", "shop.yaml"), []byte(invalidProxy), 0o644)
	for _, h := range readPreCommitHooks(t) {
		args := strings.Fields(h.Entry)[1:]
		if exec.Command(bin, args[0], "--help").Run() != nil {
			t.Logf("%s: this contourc has no %q command yet; not run", h.ID, args[0])
			continue
		}
		cmd := exec.Command(bin, args...)
		cmd.Dir = repo
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		switch {
		case args[0] == "check" && (code != 1 || !strings.Contains(string(out), "shop")):
			t.Errorf("%s on an invalid HTTPProxy: exit %d, want 1 naming it:\n%s", h.ID, code, out)
		case code > 1:
			// Which lint rules fire is lint's tests' business; here, that
			// the hook's command line runs on the configured paths.
			t.Errorf("%s: exit %d, want 0 or 1:\n%s", h.ID, code, out)
		}
	}
}

// TestPreCommitInstallsPrograms: pre-commit's golang language installs a
// hook's repository with `go install ./...` at its root (into the hook
// environment's GOPATH/bin, put first on the hook's PATH), so every
// program must be a main package that ./... matches, in this module (not
// a nested one, which ./... skips) and without build constraints: then
// contourc-engines lands beside contourc.
func TestPreCommitInstallsPrograms(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", "{{if eq .Name \"main\"}}{{.ImportPath}}{{end}}", "./...")
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	mains := strings.Fields(string(out))
	for _, prog := range Programs {
		if !slices.Contains(mains, "github.com/contourc/contourc/cmd/"+prog) {
			t.Errorf("go install ./... does not install cmd/%s (its main packages: %v)", prog, mains)
		}
	}
}
