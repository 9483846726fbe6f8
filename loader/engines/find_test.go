package engines

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// krewLayout lays out what krew installs: contourc and contourc-engines
// in the plugin's store directory, and kubectl-contourc in its bin
// directory, a relative symlink to the store's contourc. contourc is a
// copy of src.
func krewLayout(t *testing.T, src string) (link, engines string) {
	t.Helper()
	root := t.TempDir()
	store := filepath.Join(root, "store", "contourc", "v1.2.3")
	bin := filepath.Join(root, "bin")
	for _, d := range []string{store, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(store, "contourc"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	engines = filepath.Join(store, executableName())
	if err := os.WriteFile(engines, []byte("engines"), 0o755); err != nil {
		t.Fatal(err)
	}
	link = filepath.Join(bin, "kubectl-contourc")
	if err := os.Symlink(filepath.Join("..", "store", "contourc", "v1.2.3", "contourc"), link); err != nil {
		t.Skipf("symlinks: %v", err)
	}
	return link, engines
}

// TestBesideExecutableResolvesSymlinks: run through krew's symlink,
// contourc finds contourc-engines beside the file the symlink names, not
// in the symlink's directory.
func TestBesideExecutableResolvesSymlinks(t *testing.T) {
	link, want := krewLayout(t, "find_test.go")
	got, ok := besideExecutable(link)
	if !ok || got != want {
		t.Errorf("besideExecutable(%s) = %s, %v; want %s", link, got, ok, want)
	}
	if _, ok := besideExecutable(filepath.Join(t.TempDir(), "contourc")); ok {
		t.Error("found a helper in a directory without one")
	}
}

// TestFindThroughSymlink runs a program (this test binary) through a
// krew-style symlink, with neither $CONTOURC_ENGINES nor PATH naming the
// helper: it finds the one beside its real path.
func TestFindThroughSymlink(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	link, want := krewLayout(t, exe)
	cmd := exec.Command(link)
	cmd.Env = append(os.Environ(), fakeEnv+"=find", Env+"=", "PATH="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSuffix(string(out), "<nil>"); got != want {
		t.Errorf("found %s, want %s", out, want)
	}
}
