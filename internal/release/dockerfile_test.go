package release

// The Dockerfile cannot be built here (no Docker daemon in CI; the release
// pipeline builds the image), so these tests read it: the final stage is an
// empty base with a non-root user and contourc as its entrypoint, and its
// build lines, run as the Dockerfile runs them, build a static contourc and
// contourc-engines, which the final stage copies side by side. The
// binaries they build are the ones the action's tests run.

import (
	"debug/elf"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	cmd  string // upper case: FROM, RUN, ...
	args string
}

func readDockerfile(t *testing.T) []instruction {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	var out []instruction
	var cur strings.Builder
	for _, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		if cur.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if rest, ok := strings.CutSuffix(trimmed, "\\"); ok {
			cur.WriteString(rest + " ")
			continue
		}
		cur.WriteString(trimmed)
		cmd, args, _ := strings.Cut(cur.String(), " ")
		out = append(out, instruction{strings.ToUpper(cmd), strings.TrimSpace(args)})
		cur.Reset()
	}
	return out
}

// stages splits the instructions at each FROM, keyed by stage name (the
// last one also as "final").
func stages(ins []instruction) (map[string][]instruction, []instruction) {
	byName := map[string][]instruction{}
	var current []instruction
	name := ""
	flush := func() {
		if name != "" {
			byName[name] = current
		}
	}
	for _, in := range ins {
		if in.cmd == "FROM" {
			flush()
			f := strings.Fields(in.args)
			name = fmt.Sprint(len(byName))
			if len(f) >= 3 && strings.EqualFold(f[len(f)-2], "AS") {
				name = f[len(f)-1]
			}
			current = nil
		}
		current = append(current, in)
	}
	flush()
	return byName, current
}

func TestDockerfileFinalStage(t *testing.T) {
	_, final := stages(readDockerfile(t))
	base := strings.Fields(final[0].args)
	if img := base[len(base)-1]; img != "scratch" && !strings.HasPrefix(img, "gcr.io/distroless/static") {
		t.Errorf("final stage FROM %s: want scratch or distroless static", img)
	}
	var user, entrypoint, path string
	for _, in := range final {
		switch in.cmd {
		case "USER":
			user = in.args
		case "ENTRYPOINT":
			entrypoint = in.args
		case "ENV":
			if v, ok := strings.CutPrefix(in.args, "PATH="); ok {
				path = v
			}
		}
	}
	uid, _, _ := strings.Cut(user, ":")
	if uid == "" || uid == "0" || uid == "root" {
		t.Errorf("final stage USER %q: want a non-root user", user)
	}
	var ep []string
	if err := json.Unmarshal([]byte(entrypoint), &ep); err != nil || len(ep) != 1 || ep[0] != "contourc" {
		t.Errorf(`ENTRYPOINT %s: want ["contourc"] (exec form)`, entrypoint)
	}
	// Both programs in one directory on the PATH: contourc finds
	// contourc-engines beside itself.
	b := readDockerBuild(t)
	dir := filepath.Dir(b.copies["contourc"])
	for _, prog := range Programs {
		dst := b.copies[prog]
		if filepath.Dir(dst) != dir || !strings.Contains(":"+path+":", ":"+dir+":") {
			t.Errorf("%s is copied to %q: want it beside contourc (%s), in a directory on the image's PATH %q", prog, dst, dir, path)
		}
	}
}

// dockerBuild is, per program, the build stage's RUN line that builds it
// with scripts/build.sh, the output path the final stage copies and where
// in the image it copies it to, and the ARG defaults the lines see.
type dockerBuild struct {
	runs    map[string]string
	outputs map[string]string
	copies  map[string]string
	args    map[string]string
}

func readDockerBuild(t *testing.T) dockerBuild {
	t.Helper()
	byName, final := stages(readDockerfile(t))
	b := dockerBuild{runs: map[string]string{}, outputs: map[string]string{}, copies: map[string]string{}, args: map[string]string{}}
	var runs []string
	for _, in := range byName["build"] {
		switch in.cmd {
		case "ARG":
			for _, a := range strings.Fields(in.args) {
				k, v, _ := strings.Cut(a, "=")
				b.args[k] = v
			}
		case "RUN":
			if strings.Contains(in.args, "scripts/build.sh") {
				runs = append(runs, in.args)
			}
		}
	}
	for _, in := range final {
		if f := strings.Fields(in.args); in.cmd == "COPY" && len(f) == 3 && f[0] == "--from=build" {
			b.outputs[filepath.Base(f[1])] = f[1]
			b.copies[filepath.Base(f[1])] = f[2]
		}
	}
	for _, prog := range Programs {
		out := b.outputs[prog]
		if out == "" {
			t.Fatalf("the final stage copies no %s from the build stage", prog)
		}
		for _, run := range runs {
			if f := strings.Fields(run); slices.Contains(f, out) && (prog == "contourc" || slices.Contains(f, "./cmd/"+prog)) {
				b.runs[prog] = run
			}
		}
		if b.runs[prog] == "" {
			t.Fatalf("no build line of the Dockerfile (%q) builds ./cmd/%s into %s, which the final stage copies", runs, prog, out)
		}
	}
	return b
}

var (
	built     string // contourc, with contourc-engines beside it
	buildErr  error
	buildOnce sync.Once
	buildDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// dockerBuiltContourc runs the Dockerfile's build lines, with its ARG
// defaults and this machine as the target platform, in the repository
// (the build stage's WORKDIR holds the repository), writing the binaries to
// a temporary directory instead of the image's /out, and returns
// contourc's path (contourc-engines is beside it). It builds once per
// test run; the action's tests run the binaries too.
func dockerBuiltContourc(t *testing.T) string {
	t.Helper()
	b := readDockerBuild(t)
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "contourc-docker-build-")
		if buildErr != nil {
			return
		}
		for _, prog := range Programs {
			out := filepath.Join(buildDir, prog)
			script := strings.ReplaceAll(b.runs[prog], b.outputs[prog], out)
			cmd := exec.Command("sh", "-c", script)
			cmd.Dir = repoRoot
			cmd.Env = os.Environ()
			for k, v := range b.args {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			// BuildKit sets the target platform; here it is this machine.
			cmd.Env = append(cmd.Env, "TARGETOS="+runtime.GOOS, "TARGETARCH="+runtime.GOARCH)
			if o, err := cmd.CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("%s: %v\n%s", script, err, o)
				return
			}
		}
		built = filepath.Join(buildDir, "contourc")
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return built
}

func TestDockerfileBuild(t *testing.T) {
	bin := dockerBuiltContourc(t)
	out, err := exec.Command(bin, "version", "-o", "json").Output()
	if err != nil {
		t.Fatalf("version -o json: %v", err)
	}
	var v struct {
		Version    string            `json:"version"`
		Reproduces map[string]string `json:"reproduces"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	// The Dockerfile's ARG VERSION default, stamped by -ldflags.
	if want := readDockerBuild(t).args["VERSION"]; v.Version != want {
		t.Errorf("version %q, want the Dockerfile's VERSION %q", v.Version, want)
	}
	if v.Reproduces["contour"] == "" {
		t.Errorf("version -o json of the Docker build names no Contour version: %s", out)
	}
	// The image's contourc runs charts with the contourc-engines beside it.
	checkChartAlone(t, bin)
	if runtime.GOOS != "linux" {
		return
	}
	// FROM scratch has no dynamic loader or libc: the binaries must need none.
	for _, prog := range Programs {
		assertStatic(t, filepath.Join(filepath.Dir(bin), prog))
	}
}

func assertStatic(t *testing.T, bin string) {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("the Docker build's %s has an ELF interpreter: it is not static", filepath.Base(bin))
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("the Docker build's %s links %v: it is not static", filepath.Base(bin), libs)
	}
}

// TestDockerfileGoVersion: the builder image's Go is go.mod's, so the
// image builds with the toolchain the tests ran with (an older one would
// fetch a newer toolchain at build time, or fail without network).
func TestDockerfileGoVersion(t *testing.T) {
	var goVersion string
	for _, in := range readDockerfile(t) {
		if v, ok := strings.CutPrefix(in.args, "GO_VERSION="); in.cmd == "ARG" && ok {
			goVersion = v
		}
	}
	b, err := os.ReadFile(filepath.Join(repoRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var want string
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "go "); ok {
			want = strings.TrimSpace(v)
		}
	}
	if goVersion == "" || goVersion != want {
		t.Errorf("Dockerfile ARG GO_VERSION=%s, go.mod's go is %s", goVersion, want)
	}
}
