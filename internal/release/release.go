// Package release makes contourc's release artefacts from built binaries:
// one archive per platform (tar.gz, zip for Windows) holding contourc and
// contourc-engines, the program contourc runs Helm's and Flux's engines in
// and looks for beside itself (loader/engines), a SHA-256 checksums
// file, and the krew plugin manifest with those checksums filled in. The
// archives hold fixed modes, owners and times, so the same binaries give
// byte-identical archives and checksums.
package release

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"
	"time"
)

// Platform is one GOOS/GOARCH pair of a release.
type Platform struct{ OS, Arch string }

// ParsePlatform reads "linux/amd64".
func ParsePlatform(s string) (Platform, error) {
	os, arch, ok := strings.Cut(s, "/")
	if !ok || os == "" || arch == "" || strings.Contains(arch, "/") {
		return Platform{}, fmt.Errorf("platform %q: want OS/ARCH, such as linux/amd64", s)
	}
	return Platform{os, arch}, nil
}

func (p Platform) String() string { return p.OS + "/" + p.Arch }

// Programs are the commands (cmd/NAME) every release ships, contourc
// first: contourc-engines must sit beside contourc, which runs it for Helm
// charts and Flux Kustomizations.
var Programs = []string{"contourc", "contourc-engines"}

// executable is program's file name on p.
func (p Platform) executable(program string) string {
	if p.OS == "windows" {
		return program + ".exe"
	}
	return program
}

// Binary is contourc's file name in the archive: the krew plugin's bin,
// which krew links as kubectl-contourc.
func (p Platform) Binary() string { return p.executable(Programs[0]) }

// Binaries are the file names of every program in p's archive, as
// Programs orders them.
func (p Platform) Binaries() []string {
	names := make([]string, len(Programs))
	for i, prog := range Programs {
		names[i] = p.executable(prog)
	}
	return names
}

// Archive is the archive's file name: contourc_VERSION_OS_ARCH.tar.gz, or
// .zip for Windows, whose users open zips without extra tools.
func (p Platform) Archive(version string) string {
	ext := ".tar.gz"
	if p.OS == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("contourc_%s_%s_%s%s", version, p.OS, p.Arch, ext)
}

// BuildDir is where make dist builds the platform's binary, under dir.
func (p Platform) BuildDir(dir string) string {
	return filepath.Join(dir, "build", p.OS+"-"+p.Arch)
}

// ChecksumsFile is the name of the checksums file of version.
func ChecksumsFile(version string) string {
	return fmt.Sprintf("contourc_%s_checksums.txt", version)
}

// file is one member of an archive.
type file struct {
	name string
	mode int64
	data []byte
}

// archiveTime is every member's modification time: a constant, so that an
// archive depends on its contents only (and 1980, zip's earliest date).
var archiveTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// writeTarGz writes files as a gzip'ed tar owned by root.
func writeTarGz(w io.Writer, files []file) error {
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		h := &tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data)), ModTime: archiveTime, Typeflag: tar.TypeReg, Format: tar.FormatUSTAR}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := tw.Write(f.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// writeZip writes files as a zip, deflated.
func writeZip(w io.Writer, files []file) error {
	zw := zip.NewWriter(w)
	for _, f := range files {
		h := &zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: archiveTime}
		h.SetMode(os.FileMode(f.mode))
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := fw.Write(f.data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// Archive builds the archive of p from its binaries (by file name: every
// one of p.Binaries(), no other) and the extra files (README.md), each at
// the archive's top level.
func Archive(p Platform, binaries, extra map[string][]byte) ([]byte, error) {
	if len(binaries) != len(Programs) {
		return nil, fmt.Errorf("%d binaries, want %s", len(binaries), strings.Join(p.Binaries(), " and "))
	}
	var files []file
	for _, name := range p.Binaries() {
		data, ok := binaries[name]
		if !ok {
			return nil, fmt.Errorf("no %s binary", name)
		}
		files = append(files, file{name: name, mode: 0o755, data: data})
	}
	names := make([]string, 0, len(extra))
	for n := range extra {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		files = append(files, file{name: n, mode: 0o644, data: extra[n]})
	}
	var buf bytes.Buffer
	write := writeTarGz
	if p.OS == "windows" {
		write = writeZip
	}
	if err := write(&buf, files); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Checksums is the checksums file, as sha256sum prints it (and
// `sha256sum -c` reads it): "HEX  NAME" lines, sorted by name.
func Checksums(sums map[string]string) []byte {
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s  %s\n", sums[n], n)
	}
	return []byte(b.String())
}

// SHA256 is the hex SHA-256 of data.
func SHA256(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// KrewPlatform is what the krew manifest template sees of one platform:
// Files are what krew copies from the archive into the plugin's directory
// (both programs, so that contourc finds contourc-engines beside the file
// krew's kubectl-contourc symlink names), Bin the plugin's own.
type KrewPlatform struct {
	OS, Arch, Archive, SHA256, Bin string
	Files                          []string
}

// RenderKrew fills the krew manifest template (plugins/contourc.yaml) with
// version and, per platform, the archive and its checksum from sums.
func RenderKrew(tmpl []byte, version string, platforms []Platform, sums map[string]string) ([]byte, error) {
	t, err := template.New("krew").Option("missingkey=error").Parse(string(tmpl))
	if err != nil {
		return nil, err
	}
	data := struct {
		Version   string
		Platforms []KrewPlatform
	}{Version: version}
	for _, p := range platforms {
		name := p.Archive(version)
		sum, ok := sums[name]
		if !ok {
			return nil, fmt.Errorf("krew manifest: no checksum for %s", name)
		}
		data.Platforms = append(data.Platforms, KrewPlatform{OS: p.OS, Arch: p.Arch, Archive: name, SHA256: sum, Bin: p.Binary(), Files: p.Binaries()})
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, data); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Dist writes, into dir, the archive of each platform from its binaries in
// p.BuildDir(dir), the checksums file and the rendered krew manifest
// (contourc.krew.yaml). extra files go into every archive.
func Dist(dir, version string, platforms []Platform, extra map[string][]byte, krewTemplate []byte) error {
	sums := map[string]string{}
	for _, p := range platforms {
		bins := map[string][]byte{}
		for _, name := range p.Binaries() {
			b, err := os.ReadFile(filepath.Join(p.BuildDir(dir), name))
			if err != nil {
				return err
			}
			bins[name] = b
		}
		a, err := Archive(p, bins, extra)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		name := p.Archive(version)
		if err := os.WriteFile(filepath.Join(dir, name), a, 0o644); err != nil {
			return err
		}
		sums[name] = SHA256(a)
	}
	if err := os.WriteFile(filepath.Join(dir, ChecksumsFile(version)), Checksums(sums), 0o644); err != nil {
		return err
	}
	krew, err := RenderKrew(krewTemplate, version, platforms, sums)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "contourc.krew.yaml"), krew, 0o644)
}
