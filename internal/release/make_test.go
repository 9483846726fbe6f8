package release

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fakeGo writes a go command that "builds" a binary holding its package
// and platform (real cross-builds of both programs for six platforms take
// minutes) and runs the real go for anything else (make dist's go run).
func fakeGo(t *testing.T) string {
	t.Helper()
	real, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	script := `#!/bin/sh
if [ "$1" = build ]; then
	out= pkg=
	while [ $# -gt 0 ]; do
		case $1 in
		-o) out=$2; shift ;;
		./cmd/*) pkg=$1 ;;
		esac
		shift
	done
	mkdir -p "$(dirname "$out")" && printf '%s %s/%s' "$pkg" "$GOOS" "$GOARCH" >"$out" && chmod 755 "$out"
	exit
fi
exec '` + real + `' "$@"
`
	p := filepath.Join(t.TempDir(), "go")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func runMake(t *testing.T, dir string, args ...string) {
	t.Helper()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	cmd := exec.Command("make", append([]string{"-C", dir}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make %v: %v\n%s", args, err, out)
	}
}

// TestMakeDist runs the Makefile's dist recipe (with a stand-in go build):
// each platform's archive holds both programs, each built from its own
// cmd/ package for that platform.
func TestMakeDist(t *testing.T) {
	dist := t.TempDir()
	runMake(t, repoRoot, "dist", "GO="+fakeGo(t), "DIST="+dist, "VERSION=v0.0.1")
	for _, p := range makefilePlatforms(t) {
		name := p.Archive("v0.0.1")
		data, err := os.ReadFile(filepath.Join(dist, name))
		if err != nil {
			t.Fatal(err)
		}
		members := readArchive(t, name, data)
		for i, b := range p.Binaries() {
			want := "./cmd/" + Programs[i] + " " + p.String()
			if got := members[b].data; got != want {
				t.Errorf("%s: %s holds %q, want %q", name, b, got, want)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dist, "contourc.krew.yaml")); err != nil {
		t.Error(err)
	}
}

// TestMakeInstall runs the Makefile's install recipe on stand-in binaries
// in a copy of the Makefile's directory: both programs land in
// $(PREFIX)/bin, and kubectl-contourc is contourc (a hard link).
func TestMakeInstall(t *testing.T) {
	src := t.TempDir()
	mk, err := os.ReadFile(filepath.Join(repoRoot, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(src, "Makefile"), mk, 0o644)
	os.MkdirAll(filepath.Join(src, "bin"), 0o755)
	for _, prog := range Programs {
		os.WriteFile(filepath.Join(src, "bin", prog), []byte(prog), 0o755)
	}
	root := t.TempDir()
	// -o build: the binaries above stand for make build's.
	runMake(t, src, "-o", "build", "install", "DESTDIR="+root, "PREFIX=/usr")
	bin := filepath.Join(root, "usr", "bin")
	entries, err := os.ReadDir(bin)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if want := []string{"contourc", "contourc-engines", "kubectl-contourc"}; !slices.Equal(got, want) {
		t.Fatalf("make install put %v in $(PREFIX)/bin, want %v", got, want)
	}
	for _, prog := range Programs {
		b, _ := os.ReadFile(filepath.Join(bin, prog))
		if st, _ := os.Stat(filepath.Join(bin, prog)); string(b) != prog || st.Mode().Perm() != 0o755 {
			t.Errorf("%s: %q, mode %v; want make build's, 0755", prog, b, st.Mode())
		}
	}
	c, _ := os.Stat(filepath.Join(bin, "contourc"))
	k, _ := os.Stat(filepath.Join(bin, "kubectl-contourc"))
	if !os.SameFile(c, k) {
		t.Error("kubectl-contourc is not a hard link to contourc")
	}
}

// TestMakefilePrograms: the Makefile builds, ships and installs the
// programs Dist archives.
func TestMakefilePrograms(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "PROGRAMS  := "); ok {
			if got := strings.Fields(rest); !slices.Equal(got, Programs) {
				t.Errorf("Makefile PROGRAMS %v, want %v", got, Programs)
			}
			return
		}
	}
	t.Error("Makefile has no PROGRAMS line")
}
