package release

// The GitHub Action's steps (.github/action/*.sh) run here as the runner
// would run them: with GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and GITHUB_PATH
// files in a temporary directory, the Docker build's contourc on the PATH,
// releases served from a local server standing for github.com, and the
// pull-request API from one standing for api.github.com.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"
)

var actionDir = filepath.Join(repoRoot, ".github", "action")

// runner is a fake GitHub Actions environment for one step.
type runner struct {
	t         *testing.T
	temp      string // RUNNER_TEMP, and where the files below live
	workspace string // the checkout: the step's working directory
	env       []string
}

func newRunner(t *testing.T) *runner {
	t.Helper()
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the action's steps need %s (GitHub's runners have it): %v", tool, err)
		}
	}
	r := &runner{t: t, temp: t.TempDir(), workspace: t.TempDir()}
	root, _ := filepath.Abs(repoRoot)
	osName := map[string]string{"linux": "Linux", "darwin": "macOS", "windows": "Windows"}[runtime.GOOS]
	arch := map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]
	r.env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + os.Getenv("HOME"),
		"RUNNER_TEMP=" + r.temp,
		"RUNNER_OS=" + osName,
		"RUNNER_ARCH=" + arch,
		"GITHUB_ACTION_PATH=" + root,
		"GITHUB_OUTPUT=" + r.file("output"),
		"GITHUB_STEP_SUMMARY=" + r.file("summary"),
		"GITHUB_PATH=" + r.file("path"),
		"GITHUB_REPOSITORY=octo/shop",
	}
	for _, n := range []string{"output", "summary", "path"} {
		if err := os.WriteFile(r.file(n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func (r *runner) file(name string) string { return filepath.Join(r.temp, "github-"+name) }

// withContourc puts the directory of bin first on the step's PATH, as the
// install step's GITHUB_PATH line does for the steps after it.
func (r *runner) withContourc(bin string) {
	r.env[0] = "PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH")
}

// step runs a script of .github/action with env added to the runner's.
func (r *runner) step(script string, env ...string) (stdout string, code int) {
	r.t.Helper()
	abs, err := filepath.Abs(filepath.Join(actionDir, script))
	if err != nil {
		r.t.Fatal(err)
	}
	cmd := exec.Command("bash", abs)
	cmd.Dir = r.workspace
	cmd.Env = append(append([]string{}, r.env...), env...)
	var out strings.Builder
	cmd.Stdout = &out
	cmd.Stderr = &out
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), ee.ExitCode()
	} else if err != nil {
		r.t.Fatal(err)
	}
	return out.String(), 0
}

// outputs are the step's GITHUB_OUTPUT lines.
func (r *runner) outputs() map[string]string {
	b, _ := os.ReadFile(r.file("output"))
	out := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			out[k] = v
		}
	}
	return out
}

func (r *runner) read(name string) string {
	b, _ := os.ReadFile(r.file(name))
	return string(b)
}

func (r *runner) write(rel, content string) {
	p := filepath.Join(r.workspace, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// actionYAML is what the tests read of action.yml.
type actionYAML struct {
	Name   string
	Inputs map[string]struct {
		Description string
		Default     string
	}
	Outputs map[string]struct{ Value string }
	Runs    struct {
		Using string
		Steps []struct {
			Name, ID, If, Shell, Run string
			Env                      map[string]string
		}
	}
}

func TestActionDefinition(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a actionYAML
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using %q, want composite", a.Runs.Using)
	}
	for _, in := range []string{"path", "command", "base-ref", "fail-on", "comment", "version"} {
		if _, ok := a.Inputs[in]; !ok {
			t.Errorf("action.yml has no input %q", in)
		}
	}
	for _, s := range a.Runs.Steps {
		// Each step is a script of .github/action, so that these tests run
		// what the runner runs.
		script, ok := strings.CutPrefix(strings.Trim(s.Run, `"`), "$GITHUB_ACTION_PATH/.github/action/")
		if !ok || s.Shell != "bash" {
			t.Errorf("step %q runs %q in %q: want bash running a script of .github/action", s.Name, s.Run, s.Shell)
			continue
		}
		if fi, err := os.Stat(filepath.Join(actionDir, script)); err != nil || fi.Mode()&0o111 == 0 {
			t.Errorf("step %q: %s is not an executable file (%v)", s.Name, script, err)
		}
		// Every ${{ inputs.x }} a step reads is an input.
		for k, v := range s.Env {
			if in, ok := strings.CutPrefix(v, "${{ inputs."); ok {
				if _, ok := a.Inputs[strings.TrimSuffix(in, " }}")]; !ok {
					t.Errorf("step %q: env %s reads %s, which is no input", s.Name, k, v)
				}
			}
		}
	}
	for name, o := range a.Outputs {
		if !strings.Contains(o.Value, "steps.run.outputs."+name) {
			t.Errorf("output %s = %q: want the run step's %s", name, o.Value, name)
		}
	}
}

// releaseServer serves, as github.com and api.github.com would, the
// release version of repository contourc/contourc made by Dist for this
// machine's platform from bin (contourc) and the contourc-engines beside it.
func releaseServer(t *testing.T, bin, version string) (*httptest.Server, string) {
	t.Helper()
	dir := t.TempDir()
	distFrom(t, dir, version, filepath.Dir(bin))

	mux := http.NewServeMux()
	mux.Handle("/contourc/contourc/releases/download/"+version+"/", http.StripPrefix("/contourc/contourc/releases/download/"+version+"/", http.FileServer(http.Dir(dir))))
	mux.HandleFunc("/repos/contourc/contourc/releases/latest", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, `{"tag_name": %q}`, version)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, dir
}

func TestActionInstallRelease(t *testing.T) {
	bin := dockerBuiltContourc(t)
	srv, _ := releaseServer(t, bin, "v9.8.7")
	for _, version := range []string{"v9.8.7", "latest", ""} {
		t.Run("version "+version, func(t *testing.T) {
			r := newRunner(t)
			out, code := r.step("install.sh", "INPUT_VERSION="+version, "GITHUB_SERVER_URL="+srv.URL, "GITHUB_API_URL="+srv.URL, "ACTION_REPOSITORY=contourc/contourc")
			if code != 0 {
				t.Fatalf("install.sh exit %d:\n%s", code, out)
			}
			dir := strings.TrimSpace(r.read("path"))
			for _, name := range (Platform{runtime.GOOS, runtime.GOARCH}).Binaries() {
				want, _ := os.ReadFile(filepath.Join(filepath.Dir(bin), name))
				if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != string(want) {
					t.Fatalf("GITHUB_PATH names %q, which does not hold the released %s (%v)", dir, name, err)
				}
			}
			checkChartAlone(t, filepath.Join(dir, "contourc"))
			if !strings.Contains(out, "contourc dev") {
				t.Errorf("install.sh does not print the installed version:\n%s", out)
			}
		})
	}
}

func TestActionInstallRefusesBadChecksum(t *testing.T) {
	bin := dockerBuiltContourc(t)
	srv, dir := releaseServer(t, bin, "v9.8.7")
	sums := filepath.Join(dir, ChecksumsFile("v9.8.7"))
	b, _ := os.ReadFile(sums)
	if err := os.WriteFile(sums, []byte("0000"+string(b[4:])), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newRunner(t)
	out, code := r.step("install.sh", "INPUT_VERSION=v9.8.7", "GITHUB_SERVER_URL="+srv.URL, "GITHUB_API_URL="+srv.URL)
	if code == 0 || !strings.Contains(out, "::error title=contourc install::") || !strings.Contains(out, "SHA-256") {
		t.Errorf("install.sh of a tampered archive: exit %d:\n%s", code, out)
	}
	if r.read("path") != "" {
		t.Errorf("install.sh added %q to the PATH after a bad checksum", r.read("path"))
	}
}

// TestActionInstallSource checks that version: source builds both
// programs with scripts/build.sh into the directory it puts on the PATH
// (with a stand-in go that records its arguments: the Dockerfile test
// builds the real binaries).
func TestActionInstallSource(t *testing.T) {
	r := newRunner(t)
	fakeGo := filepath.Join(r.temp, "fake-go")
	script := "#!/bin/sh\necho \"$@\" >> \"$RUNNER_TEMP/go-args\"\nwhile [ \"$1\" != -o ]; do shift; done\nprintf '#!/bin/sh\\necho contourc built\\n' > \"$2\"; chmod +x \"$2\"\n"
	if err := os.WriteFile(fakeGo, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	out, code := r.step("install.sh", "INPUT_VERSION=source", "GO="+fakeGo, "VERSION=v0.0.1")
	if code != 0 || !strings.Contains(out, "contourc built") {
		t.Fatalf("install.sh, version source: exit %d:\n%s", code, out)
	}
	b, _ := os.ReadFile(filepath.Join(r.temp, "go-args"))
	builds := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(builds) != len(Programs) {
		t.Fatalf("version source ran go %d times, want once per program:\n%s", len(builds), b)
	}
	dir := strings.TrimSpace(r.read("path"))
	for i, prog := range Programs {
		if args := builds[i]; !strings.Contains(args, "-X main.version=v0.0.1") || !strings.HasSuffix(args, " "+filepath.Join(dir, prog)+" ./cmd/"+prog) {
			t.Errorf("version source ran go %s: want scripts/build.sh's build of ./cmd/%s into %s", args, prog, dir)
		}
	}
}

// An HTTPProxy whose Service is missing: check reports it invalid.
const invalidProxy = `apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata:
  name: shop
  namespace: default
spec:
  virtualhost:
    fqdn: shop.example.com
  routes:
  - services:
    - name: missing
      port: 80
`

func TestActionRunCheck(t *testing.T) {
	bin := dockerBuiltContourc(t)
	r := newRunner(t)
	r.withContourc(bin)
	r.write("manifests/shop.yaml", invalidProxy)
	out, code := r.step("run.sh", "INPUT_COMMAND=check", "INPUT_PATH=manifests")
	if code != 1 {
		t.Fatalf("run.sh check of an invalid HTTPProxy: exit %d, want 1:\n%s", code, out)
	}
	if !strings.Contains(out, "::error file=manifests/shop.yaml,line=1") {
		t.Errorf("no annotation on manifests/shop.yaml:\n%s", out)
	}
	if o := r.outputs(); o["exit-code"] != "1" || o["report"] == "" {
		t.Errorf("outputs %v: want exit-code 1 and a report", o)
	}
	summary := r.read("summary")
	if !strings.Contains(summary, "### contourc check: exit 1") || !strings.Contains(summary, "- **error** `manifests/shop.yaml:1` HTTPProxy default/shop is invalid: ServiceUnresolvedReference") {
		t.Errorf("step summary:\n%s", summary)
	}
}

func TestActionRunLintArguments(t *testing.T) {
	// contourc lint is another change's; a stand-in contourc shows what
	// the step runs.
	r := newRunner(t)
	fake := filepath.Join(r.temp, "bin", "contourc")
	os.MkdirAll(filepath.Dir(fake), 0o755)
	os.WriteFile(fake, []byte("#!/bin/sh\necho \"::warning file=a.yaml,line=3,title=route%3A shadowed%2C twice::100%25 $*\"\nexit 1\n"), 0o755)
	r.withContourc(fake)
	out, code := r.step("run.sh", "INPUT_COMMAND=lint", "INPUT_PATH=manifests extra", "INPUT_FAIL_ON=warning")
	if code != 1 || !strings.Contains(out, "::100%25 lint -o github --fail-on warning manifests extra") {
		t.Errorf("run.sh lint: exit %d, want contourc's 1, and `lint -o github --fail-on warning manifests extra`:\n%s", code, out)
	}
	// The summary undoes the workflow command's escapes.
	if want := "- **warning** `a.yaml:3` route: shadowed, twice: 100% lint -o github"; !strings.Contains(r.read("summary"), want) {
		t.Errorf("summary lacks %q:\n%s", want, r.read("summary"))
	}
}

// gitChange makes the workspace a checkout of a pull request: main (also
// as origin/main) holds testdata/diff/route-weight/old in manifests/, and
// the work tree the new side, a change of a route's weights.
func (r *runner) gitChange() {
	t := r.t
	t.Helper()
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = r.workspace
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	copyCase := func(side string) {
		dir := filepath.Join(repoRoot, "testdata", "diff", "route-weight", side)
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			r.write(filepath.Join("manifests", e.Name()), string(b))
		}
	}
	git("init", "-q", "-b", "main")
	copyCase("old")
	git("add", ".")
	git("commit", "-q", "-m", "old")
	copyCase("new")
	git("update-ref", "refs/remotes/origin/main", "HEAD")
}

func TestActionRunDiff(t *testing.T) {
	bin := dockerBuiltContourc(t)
	r := newRunner(t)
	r.withContourc(bin)
	r.gitChange()
	out, code := r.step("run.sh", "INPUT_COMMAND=diff", "INPUT_PATH=manifests", "GITHUB_BASE_REF=main")
	if code != 0 {
		t.Fatalf("run.sh diff of a change: exit %d, want 0 (a change is no failure):\n%s", code, out)
	}
	o := r.outputs()
	if o["changed"] != "true" || o["exit-code"] != "0" {
		t.Errorf("outputs %v: want changed true, exit-code 0", o)
	}
	report, _ := os.ReadFile(o["report"])
	if !strings.Contains(string(report), "Routes") || !strings.Contains(r.read("summary"), string(report)) {
		t.Errorf("report %q is not diff's markdown, or not in the summary:\n%s", report, r.read("summary"))
	}

	// fail-on: change fails the step on the same change.
	_, code = r.step("run.sh", "INPUT_COMMAND=diff", "INPUT_PATH=manifests", "INPUT_BASE_REF=origin/main", "INPUT_FAIL_ON=change")
	if code != 1 {
		t.Errorf("run.sh diff with fail-on change: exit %d, want 1", code)
	}
	// Outside a pull request, diff needs base-ref.
	out, code = r.step("run.sh", "INPUT_COMMAND=diff", "INPUT_PATH=manifests")
	if code != 2 || !strings.Contains(out, "no base-ref") {
		t.Errorf("run.sh diff without a base: exit %d:\n%s", code, out)
	}
}

// fakeIssues stands for GitHub's issue-comments API of octo/shop.
type fakeIssues struct {
	mu       sync.Mutex
	comments []map[string]any
	posts    int
	patches  int
	token    string
	refuse   bool
}

func (f *fakeIssues) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.token = r.Header.Get("Authorization")
	if f.refuse && r.Method != http.MethodGet {
		http.Error(w, `{"message":"Resource not accessible by integration"}`, http.StatusForbidden)
		return
	}
	body := func() string {
		var p struct{ Body string }
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &p)
		return p.Body
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/repos/octo/shop/issues/7/comments":
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
		from, to := min((page-1)*per, len(f.comments)), min(page*per, len(f.comments))
		json.NewEncoder(w).Encode(f.comments[from:to])
	case r.Method == http.MethodPost && r.URL.Path == "/repos/octo/shop/issues/7/comments":
		f.posts++
		f.comments = append(f.comments, map[string]any{"id": 1000 + len(f.comments), "body": body()})
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, "{}")
	case r.Method == http.MethodPatch && strings.HasPrefix(r.URL.Path, "/repos/octo/shop/issues/comments/"):
		f.patches++
		id, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/repos/octo/shop/issues/comments/"))
		for _, c := range f.comments {
			if c["id"] == id {
				c["body"] = body()
			}
		}
		fmt.Fprint(w, "{}")
	default:
		http.NotFound(w, r)
	}
}

func TestActionComment(t *testing.T) {
	api := &fakeIssues{}
	// Comments of others, over more than one page, come first.
	for i := range 120 {
		api.comments = append(api.comments, map[string]any{"id": i, "body": "looks good"})
	}
	srv := httptest.NewServer(api)
	defer srv.Close()
	r := newRunner(t)
	report := filepath.Join(r.temp, "diff.md")
	env := []string{"GITHUB_API_URL=" + srv.URL, "PR_NUMBER=7", "REPORT=" + report, "INPUT_PATH=manifests", "GITHUB_TOKEN=t0ken"}
	for i, text := range []string{"first diff", "second diff"} {
		os.WriteFile(report, []byte("**"+text+"**\n"), 0o644)
		if out, code := r.step("comment.sh", env...); code != 0 {
			t.Fatalf("run %d of comment.sh: exit %d:\n%s", i+1, code, out)
		}
	}
	if api.posts != 1 || api.patches != 1 || len(api.comments) != 121 {
		t.Fatalf("%d posts, %d edits, %d comments: want the comment posted once, then edited", api.posts, api.patches, len(api.comments))
	}
	if got, want := api.comments[120]["body"], "<!-- contourc diff manifests -->\n**second diff**"; got != want {
		t.Errorf("comment body %q, want %q", got, want)
	}
	if api.token != "Bearer t0ken" {
		t.Errorf("Authorization %q", api.token)
	}

	// A fork's read-only token: a warning, and the job goes on.
	api.refuse = true
	os.WriteFile(report, []byte("third\n"), 0o644)
	out, code := r.step("comment.sh", env...)
	if code != 0 || !strings.Contains(out, "::warning title=contourc comment::could not update comment 1120") {
		t.Errorf("comment.sh with a read-only token: exit %d:\n%s", code, out)
	}
}
