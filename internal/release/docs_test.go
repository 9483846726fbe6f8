package release

// The README's install section and docs/ci.md's action workflow, run: the
// docker run lines with the Docker build's binary standing for the image,
// the kubectl plugin by its name, and each use of the action with its
// inputs through the action's scripts.

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// fencedBlocks returns the fenced code blocks of a Markdown file whose info
// string is lang.
func fencedBlocks(t *testing.T, path, lang string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	var cur *strings.Builder
	for _, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && trimmed == "```"+lang:
			cur = &strings.Builder{}
		case cur != nil && trimmed == "```":
			blocks = append(blocks, cur.String())
			cur = nil
		case cur != nil:
			cur.WriteString(line + "\n")
		}
	}
	return blocks
}

// dockerRuns are the README's `docker run` lines, as the words after the
// image name (contourc's arguments) and the container path of the mount.
func dockerRuns(t *testing.T) (runs [][]string, mount string) {
	t.Helper()
	for _, block := range fencedBlocks(t, filepath.Join(repoRoot, "README.md"), "sh") {
		for _, line := range strings.Split(block, "\n") {
			words := strings.Fields(line)
			if len(words) < 2 || words[0] != "docker" || words[1] != "run" {
				continue
			}
			for i := 2; i < len(words); i++ {
				switch w := words[i]; {
				case w == "-v":
					// "$PWD/manifests:/manifests:ro"
					parts := strings.Split(strings.Trim(words[i+1], `"`), ":")
					mount = parts[1]
					i++
				case w == "-p":
					i++
				case w == "contourc":
					runs = append(runs, words[i+1:])
					i = len(words)
				}
			}
		}
	}
	if len(runs) == 0 || mount == "" {
		t.Fatal("the README shows no `docker run ... contourc` line with a -v mount")
	}
	return runs, mount
}

// freePort is a TCP port nothing listens on, for now.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}

func TestREADMEDockerRun(t *testing.T) {
	bin := dockerBuiltContourc(t)
	runs, mount := dockerRuns(t)
	// The mounted directory: the bundled examples, read-only.
	dir := filepath.Join(t.TempDir(), "manifests")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(repoRoot, "examples"))); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o555)
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	seen := map[string]bool{}
	for _, run := range runs {
		args := make([]string, len(run))
		for i, a := range run {
			args[i] = strings.Replace(a, mount, dir, 1)
		}
		seen[args[0]] = true
		t.Run(strings.Join(run, " "), func(t *testing.T) {
			if args[0] != "serve" {
				if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
					t.Fatalf("%v\n%s", err, out)
				}
				return
			}
			// serve on the README's addresses, on free ports, until ready.
			http := freePort(t)
			args = append(args, "--xds-port", freePort(t), "--http-port", http)
			cmd := exec.Command(bin, args...)
			var logs strings.Builder
			cmd.Stderr = &logs
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { cmd.Process.Kill(); cmd.Wait() }()
			if !ready(t, "http://127.0.0.1:"+http+"/readyz") {
				t.Fatalf("serve never answered /readyz with 200:\n%s", logs.String())
			}
		})
	}
	if !seen["check"] || !seen["serve"] {
		t.Errorf("the README's docker run lines show %v, want check and serve", seen)
	}
}

// ready polls url until it answers 200, for up to 30 seconds.
func ready(t *testing.T, url string) bool {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return true
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// TestKubectlPlugin runs the binary by its plugin name, as krew's link or
// make install's hard link does, and through kubectl when there is one.
func TestKubectlPlugin(t *testing.T) {
	bin := dockerBuiltContourc(t)
	dir := t.TempDir()
	plugin := filepath.Join(dir, "kubectl-contourc")
	if err := os.Symlink(bin, plugin); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(plugin, "check", "--help").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "kubectl contourc check [flags]") {
		t.Errorf("kubectl-contourc check --help: %v:\n%s", err, out)
	}
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Log("no kubectl: the plugin ran by its name only")
		return
	}
	cmd := exec.Command(kubectl, "contourc", "version")
	cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"), "KUBECONFIG="+filepath.Join(dir, "none"))
	out, err = cmd.CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "contourc ") {
		t.Errorf("kubectl contourc version: %v:\n%s", err, out)
	}
}

// actionUse is a step of a workflow that uses the contourc action.
type actionUse struct {
	Uses string            `yaml:"uses"`
	With map[string]string `yaml:"with"`
}

// TestCIDocsActionUses runs each use of the action that docs/ci.md shows,
// with its inputs, through the action's run and comment steps, on a
// checkout of a pull request that changes a route.
func TestCIDocsActionUses(t *testing.T) {
	var a actionYAML
	b, _ := os.ReadFile(filepath.Join(repoRoot, "action.yml"))
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	bin := dockerBuiltContourc(t)
	var uses []actionUse
	for _, block := range fencedBlocks(t, filepath.Join(repoRoot, "docs", "ci.md"), "yaml") {
		var wf struct {
			Jobs map[string]struct{ Steps []actionUse }
		}
		if err := yaml.Unmarshal([]byte(block), &wf); err != nil {
			t.Fatalf("docs/ci.md: %v\n%s", err, block)
		}
		for _, job := range wf.Jobs {
			for _, s := range job.Steps {
				if strings.HasPrefix(s.Uses, "contourc/contourc@") {
					uses = append(uses, s)
				}
			}
		}
	}
	commands := map[string]bool{}
	for _, u := range uses {
		var env []string
		for k, v := range u.With {
			if _, ok := a.Inputs[k]; !ok {
				t.Errorf("docs/ci.md gives the action input %q, which action.yml does not have", k)
			}
			env = append(env, "INPUT_"+strings.ToUpper(strings.ReplaceAll(k, "-", "_"))+"="+v)
		}
		commands[u.With["command"]] = true
		t.Run(u.With["command"], func(t *testing.T) {
			r := newRunner(t)
			r.withContourc(bin)
			r.gitChange()
			out, code := r.step("run.sh", append(env, "GITHUB_BASE_REF=main")...)
			if code != 0 {
				t.Fatalf("run.sh with %v: exit %d:\n%s", u.With, code, out)
			}
			if u.With["comment"] == "true" && r.outputs()["report"] == "" {
				t.Errorf("comment: true, but the run step gave the comment step no report")
			}
		})
	}
	if !commands["check"] || !commands["diff"] {
		t.Errorf("docs/ci.md uses the action for %v, want check and diff", commands)
	}
}

// TestDocsGoInstallBothPrograms: every `go install` of contourc the docs
// show installs contourc-engines too (cmd/...), without which charts and
// Flux Kustomizations fail.
func TestDocsGoInstallBothPrograms(t *testing.T) {
	docs, _ := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	docs = append(docs, filepath.Join(repoRoot, "README.md"))
	const module = "go install github.com/contourc/contourc/"
	seen := 0
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			_, rest, ok := strings.Cut(line, module)
			if !ok {
				continue
			}
			seen++
			if !strings.HasPrefix(rest, "cmd/...@") && !strings.HasPrefix(rest, "cmd/contourc-engines") {
				t.Errorf("%s:%d: %s: want %scmd/...@VERSION, which installs contourc-engines too", filepath.Base(doc), i+1, strings.TrimSpace(line), module)
			}
		}
	}
	if seen == 0 {
		t.Error("the docs show no go install of contourc")
	}
}
