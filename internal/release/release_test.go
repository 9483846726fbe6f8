package release

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

const repoRoot = "../.."

// makefilePlatforms are the platforms of the Makefile's PLATFORMS line,
// which make dist builds.
func makefilePlatforms(t *testing.T) []Platform {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		rest, ok := strings.CutPrefix(line, "PLATFORMS := ")
		if !ok {
			continue
		}
		var ps []Platform
		for _, f := range strings.Fields(rest) {
			p, err := ParsePlatform(f)
			if err != nil {
				t.Fatal(err)
			}
			ps = append(ps, p)
		}
		return ps
	}
	t.Fatal("Makefile has no PLATFORMS := line")
	return nil
}

func TestMakefilePlatforms(t *testing.T) {
	var got []string
	for _, p := range makefilePlatforms(t) {
		got = append(got, p.String())
	}
	slices.Sort(got)
	want := []string{"darwin/amd64", "darwin/arm64", "linux/amd64", "linux/arm64", "windows/amd64", "windows/arm64"}
	if !slices.Equal(got, want) {
		t.Errorf("make dist builds %v, want %v", got, want)
	}
}

// fakeBinary is the stand-in for program's binary on p: its name and
// platform (building twelve real ones takes minutes).
func fakeBinary(p Platform, name string) string { return name + " for " + p.String() }

// fakeDist lays out make dist's build directory with stand-in binaries per
// platform and runs Dist on it.
func fakeDist(t *testing.T, dir, version string, platforms []Platform) {
	t.Helper()
	for _, p := range platforms {
		if err := os.MkdirAll(p.BuildDir(dir), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range p.Binaries() {
			if err := os.WriteFile(filepath.Join(p.BuildDir(dir), name), []byte(fakeBinary(p, name)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	tmpl, err := os.ReadFile(filepath.Join(repoRoot, "plugins", "contourc.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := Dist(dir, version, platforms, map[string][]byte{"README.md": []byte("# contourc\n")}, tmpl); err != nil {
		t.Fatal(err)
	}
}

// archiveMember is a file read back from an archive.
type archiveMember struct {
	mode os.FileMode
	data string
}

func readArchive(t *testing.T, name string, data []byte) map[string]archiveMember {
	t.Helper()
	out := map[string]archiveMember{}
	if strings.HasSuffix(name, ".zip") {
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(rc)
			rc.Close()
			out[f.Name] = archiveMember{f.Mode().Perm(), string(b)}
		}
		return out
	}
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, _ := io.ReadAll(tr)
		out[h.Name] = archiveMember{os.FileMode(h.Mode).Perm(), string(b)}
	}
	return out
}

func TestDist(t *testing.T) {
	const version = "v1.2.3"
	platforms := makefilePlatforms(t)
	dir := t.TempDir()
	fakeDist(t, dir, version, platforms)

	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		if !e.IsDir() {
			got = append(got, e.Name())
		}
	}
	want := []string{
		"contourc.krew.yaml",
		"contourc_v1.2.3_checksums.txt",
		"contourc_v1.2.3_darwin_amd64.tar.gz",
		"contourc_v1.2.3_darwin_arm64.tar.gz",
		"contourc_v1.2.3_linux_amd64.tar.gz",
		"contourc_v1.2.3_linux_arm64.tar.gz",
		"contourc_v1.2.3_windows_amd64.zip",
		"contourc_v1.2.3_windows_arm64.zip",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("dist holds %v, want %v", got, want)
	}

	// Each checksum line is the SHA-256 of its archive, as sha256sum -c
	// checks it, and every archive has one.
	sums, err := os.ReadFile(filepath.Join(dir, ChecksumsFile(version)))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(sums), "\n"), "\n")
	if len(lines) != len(platforms) {
		t.Fatalf("checksums file has %d lines, want %d:\n%s", len(lines), len(platforms), sums)
	}
	for _, line := range lines {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("checksum line %q: want HEX, two spaces, NAME", line)
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if SHA256(data) != sum {
			t.Errorf("%s: checksum %s, file's is %s", name, sum, SHA256(data))
		}
	}

	// Each archive holds its platform's contourc and contourc-engines
	// (contourc runs the second for Helm charts and Flux Kustomizations,
	// and looks for it beside itself), and the README.
	for _, p := range platforms {
		name := p.Archive(version)
		data, _ := os.ReadFile(filepath.Join(dir, name))
		members := readArchive(t, name, data)
		exe := ""
		if p.OS == "windows" {
			exe = ".exe"
		}
		want := []string{"README.md", "contourc" + exe, "contourc-engines" + exe}
		var got []string
		for m := range members {
			got = append(got, m)
		}
		slices.Sort(got)
		if !slices.Equal(got, slices.Sorted(slices.Values(want))) {
			t.Errorf("%s holds %v, want %v", name, got, want)
		}
		for _, b := range want[1:] {
			if bin := members[b]; bin.data != fakeBinary(p, b) || bin.mode != 0o755 {
				t.Errorf("%s: %s = %+v, want the %s binary, mode 0755", name, b, bin, p)
			}
		}
	}

	// The same binaries give the same archives.
	again := t.TempDir()
	fakeDist(t, again, version, platforms)
	sums2, _ := os.ReadFile(filepath.Join(again, ChecksumsFile(version)))
	if !bytes.Equal(sums, sums2) {
		t.Errorf("a second dist of the same binaries has other checksums:\n%s\n%s", sums, sums2)
	}
}

// krewPlatform is the one platform of the krew manifest in dir.
func krewPlatform(t *testing.T, dir string) krewPlatformSpec {
	t.Helper()
	m := readKrew(t, dir)
	if len(m.Spec.Platforms) != 1 {
		t.Fatalf("%d krew platforms, want 1", len(m.Spec.Platforms))
	}
	return m.Spec.Platforms[0]
}

func readKrew(t *testing.T, dir string) krewManifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "contourc.krew.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var m krewManifest
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("rendered krew manifest: %v\n%s", err, b)
	}
	return m
}

// krewPlatformSpec is one platform of a krew Plugin.
type krewPlatformSpec struct {
	Selector struct {
		MatchLabels map[string]string `yaml:"matchLabels"`
	} `yaml:"selector"`
	URI    string `yaml:"uri"`
	SHA256 string `yaml:"sha256"`
	Files  []struct {
		From string `yaml:"from"`
		To   string `yaml:"to"`
	} `yaml:"files"`
	Bin string `yaml:"bin"`
}

// krewManifest is the part of a krew Plugin (v1alpha2) that krew needs.
type krewManifest struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		Version          string             `yaml:"version"`
		Homepage         string             `yaml:"homepage"`
		ShortDescription string             `yaml:"shortDescription"`
		Description      string             `yaml:"description"`
		Platforms        []krewPlatformSpec `yaml:"platforms"`
	} `yaml:"spec"`
}

func TestKrewManifest(t *testing.T) {
	const version = "v1.2.3"
	platforms := makefilePlatforms(t)
	dir := t.TempDir()
	fakeDist(t, dir, version, platforms)
	m := readKrew(t, dir)
	// metadata.name is the plugin's name: kubectl contourc.
	if m.APIVersion != "krew.googlecontainertools.github.com/v1alpha2" || m.Kind != "Plugin" || m.Metadata.Name != "contourc" {
		t.Errorf("apiVersion %q, kind %q, name %q", m.APIVersion, m.Kind, m.Metadata.Name)
	}
	if m.Spec.Version != version || m.Spec.Homepage == "" || m.Spec.ShortDescription == "" || m.Spec.Description == "" {
		t.Errorf("spec version %q, homepage %q, shortDescription %q: want the version and non-empty texts", m.Spec.Version, m.Spec.Homepage, m.Spec.ShortDescription)
	}
	if len(m.Spec.Platforms) != len(platforms) {
		t.Fatalf("%d krew platforms, want %d", len(m.Spec.Platforms), len(platforms))
	}
	for i, p := range platforms {
		kp := m.Spec.Platforms[i]
		name := p.Archive(version)
		data, _ := os.ReadFile(filepath.Join(dir, name))
		if kp.Selector.MatchLabels["os"] != p.OS || kp.Selector.MatchLabels["arch"] != p.Arch {
			t.Errorf("platform %d selects %v, want os %s arch %s", i, kp.Selector.MatchLabels, p.OS, p.Arch)
		}
		if want := "https://github.com/contourc/contourc/releases/download/" + version + "/" + name; kp.URI != want {
			t.Errorf("%s: uri %q, want %q", p, kp.URI, want)
		}
		if kp.SHA256 != SHA256(data) {
			t.Errorf("%s: sha256 %s, archive's is %s", p, kp.SHA256, SHA256(data))
		}
		// bin is the plugin, contourc; files copy contourc-engines too,
		// or krew's directory would hold contourc alone and contourc
		// could not run Helm charts or Flux Kustomizations.
		exe := ""
		if p.OS == "windows" {
			exe = ".exe"
		}
		if kp.Bin != "contourc"+exe {
			t.Errorf("%s: bin %q, want contourc%s", p, kp.Bin, exe)
		}
		var files []string
		for _, f := range kp.Files {
			if f.To != "." {
				t.Errorf("%s: %s copied to %q, want . (beside the plugin's bin)", p, f.From, f.To)
			}
			files = append(files, f.From)
		}
		if want := []string{"contourc" + exe, "contourc-engines" + exe}; !slices.Equal(files, want) {
			t.Errorf("%s: krew copies %v, want %v", p, files, want)
		}
	}
}

// TestArchiveNeedsEveryProgram: an archive without contourc-engines (or
// with a program make dist did not build) is refused, not shipped.
func TestArchiveNeedsEveryProgram(t *testing.T) {
	p := Platform{"windows", "amd64"}
	for _, tc := range []struct {
		bins map[string][]byte
		want string
	}{
		{map[string][]byte{"contourc.exe": nil}, "1 binaries, want contourc.exe and contourc-engines.exe"},
		{map[string][]byte{"contourc.exe": nil, "contourc-engines": nil}, "no contourc-engines.exe binary"},
	} {
		if _, err := Archive(p, tc.bins, nil); err == nil || err.Error() != tc.want {
			t.Errorf("Archive(%v): %v, want %s", slices.Collect(maps.Keys(tc.bins)), err, tc.want)
		}
	}
	dir := t.TempDir()
	os.MkdirAll(p.BuildDir(dir), 0o755)
	os.WriteFile(filepath.Join(p.BuildDir(dir), "contourc.exe"), []byte("bin"), 0o755)
	if err := Dist(dir, "v1", []Platform{p}, nil, []byte("")); err == nil || !strings.Contains(err.Error(), "contourc-engines.exe") {
		t.Errorf("Dist without contourc-engines.exe: %v", err)
	}
}

func TestRenderKrewMissingChecksum(t *testing.T) {
	_, err := RenderKrew([]byte("{{ .Version }}"), "v1", []Platform{{"linux", "amd64"}}, map[string]string{})
	if err == nil || !strings.Contains(err.Error(), "no checksum for contourc_v1_linux_amd64.tar.gz") {
		t.Errorf("err = %v", err)
	}
}

func TestParsePlatform(t *testing.T) {
	for _, bad := range []string{"linux", "/amd64", "linux/", "linux/amd64/v2"} {
		if _, err := ParsePlatform(bad); err == nil {
			t.Errorf("ParsePlatform(%q) accepted", bad)
		}
	}
}
