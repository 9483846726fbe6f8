package release

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// webChart is a Helm chart: contourc renders it in contourc-engines.
const webChart = "../../loader/helmchart/testdata/web"

// checkChartAlone runs contourc check on a Helm chart with neither
// $CONTOURC_ENGINES nor the PATH naming contourc-engines: it passes only
// when contourc finds the program beside its real path, as an install
// from an archive, the image, the action or krew must leave it.
func checkChartAlone(t *testing.T, contourc string) {
	t.Helper()
	cmd := exec.Command(contourc, "check", webChart)
	cmd.Env = append(os.Environ(), "CONTOURC_ENGINES=", "PATH="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("%s check %s: %v\n%s", contourc, webChart, err, stderr)
	}
	if !strings.Contains(string(out), "default/release-name-web ") {
		t.Errorf("%s check %s lacks the chart's HTTPProxy:\n%s", contourc, webChart, out)
	}
}

// distFrom runs Dist for this machine's platform into dir on the
// programs in bins (the Docker build's).
func distFrom(t *testing.T, dir, version, bins string) Platform {
	t.Helper()
	p := Platform{runtime.GOOS, runtime.GOARCH}
	if err := os.MkdirAll(p.BuildDir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range p.Binaries() {
		data, err := os.ReadFile(filepath.Join(bins, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p.BuildDir(dir), name), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tmpl, _ := os.ReadFile(filepath.Join(repoRoot, "plugins", "contourc.yaml"))
	if err := Dist(dir, version, []Platform{p}, nil, tmpl); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestKrewInstall installs this machine's archive as krew does: the
// manifest's files copied into the plugin's store directory, and
// kubectl-contourc in krew's bin directory a relative symlink to the
// manifest's bin there. kubectl contourc then runs a chart through the
// contourc-engines beside the symlink's target.
func TestKrewInstall(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges")
	}
	const version = "v9.8.7"
	contourc := dockerBuiltContourc(t)
	dir := t.TempDir()
	p := distFrom(t, dir, version, filepath.Dir(contourc))
	data, err := os.ReadFile(filepath.Join(dir, p.Archive(version)))
	if err != nil {
		t.Fatal(err)
	}
	members := readArchive(t, p.Archive(version), data)

	root := t.TempDir()
	store := filepath.Join(root, "store", "contourc", version)
	bin := filepath.Join(root, "bin")
	os.MkdirAll(store, 0o755)
	os.MkdirAll(bin, 0o755)
	kp := krewPlatform(t, dir)
	for _, f := range kp.Files {
		m, ok := members[f.From]
		if !ok {
			t.Fatalf("krew copies %s, which the archive lacks", f.From)
		}
		if err := os.WriteFile(filepath.Join(store, f.To, f.From), []byte(m.data), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	rel, _ := filepath.Rel(bin, filepath.Join(store, kp.Bin))
	link := filepath.Join(bin, "kubectl-contourc")
	if err := os.Symlink(rel, link); err != nil {
		t.Fatal(err)
	}
	checkChartAlone(t, link)
}
