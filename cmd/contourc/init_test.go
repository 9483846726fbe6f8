package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contourc/contourc/cmd/contourc/internal/initconfig"
	"github.com/contourc/contourc/cmd/contourc/internal/repoconfig"
	"github.com/contourc/contourc/internal/survey"
	"github.com/contourc/contourc/internal/testfs"
)

var initDir = filepath.Join(repoRoot, "testdata", "init")

// copyTree copies the sample repository src to dst, its files in reverse
// order when reversed (init must not depend on the order files are made).
func copyTree(t *testing.T, src, dst string, reversed bool) {
	t.Helper()
	var files []string
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if reversed {
		slices.Reverse(files)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(src, f)
		testfs.Write(t, dst, map[string]string{rel: string(b)})
	}
}

// contourc init on the sample repositories of testdata/init: the file
// written (testdata/cli/init/<repo>.yaml, -update rewrites), valid by the
// schema and read without error, the same whatever the order the files
// were made in, and `contourc check` with no PATH then reading the paths
// chosen.
func TestInit(t *testing.T) {
	schema := loadSchema(t)
	for _, c := range []struct {
		repo  string
		check int // check's exit code in the repository
		says  []string
	}{
		{"valid", exitOK, []string{`- "apps/web"`, `- "infra"`, "1 Flux Kustomization object(s)", "1 Argo CD Application object(s)"}},
		// The base's overlays are alternatives, the absent objects are
		// listed to assume; the refused file makes check fail.
		{"overlays", exitFailure, []string{`- "apps/overlays/prod"  # one of the overlays`, "the others: apps/overlays/staging",
			`"platform/wildcard-tls:web"`, `"web/kibana-kb-http:5601/tls"`, "port http referred to by name: write its number",
			`ingressClassName: ["external"]  # the classes found: external, internal`, `platform/broken.yaml:5: Service platform/broken: unknown field "spec.portz"`}},
		{"cert-manager", exitOK, []string{"1 cert-manager Certificate", "1 cert-manager annotation on an Ingress", "standIns: true", "Secret web/web-tls, absent"}},
	} {
		t.Run(c.repo, func(t *testing.T) {
			dirs := []string{t.TempDir(), t.TempDir()}
			var written []string
			for i, dir := range dirs {
				copyTree(t, filepath.Join(initDir, c.repo), dir, i == 1)
				got := runCLI(t, "", "init", dir)
				got.wantExit(t, exitOK)
				b, err := os.ReadFile(filepath.Join(dir, repoconfig.Name))
				if err != nil {
					t.Fatal(err)
				}
				written = append(written, string(b))
			}
			if written[0] != written[1] {
				t.Errorf("init wrote different files for the same repository:\n%s\n---\n%s", written[0], written[1])
			}
			goldenFile(t, filepath.Join(repoRoot, "testdata", "cli", "init", c.repo+".yaml"), []byte(written[0]))
			for _, s := range c.says {
				if !strings.Contains(written[0], s) {
					t.Errorf("the file does not say %q:\n%s", s, written[0])
				}
			}
			checkConfigExample(t, c.repo, schema, written[0])
			t.Chdir(dirs[0])
			runCLI(t, "", "check").wantExit(t, c.check)
		})
	}
}

// An existing file is kept (exit 2) unless --force.
func TestInitKeepsAnExistingFile(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, filepath.Join(initDir, "valid"), dir, false)
	file := filepath.Join(dir, repoconfig.Name)
	testfs.Write(t, dir, map[string]string{repoconfig.Name: "namespace: mine\n"})
	got := runCLI(t, "", "init", dir)
	got.wantExit(t, exitFailure)
	if !strings.Contains(got.stderr, "exists already: contourc init does not replace it without --force") {
		t.Errorf("stderr:\n%s", got.stderr)
	}
	if b, _ := os.ReadFile(file); string(b) != "namespace: mine\n" {
		t.Errorf("the file was changed: %q", b)
	}
	runCLI(t, "", "init", "--force", dir).wantExit(t, exitOK)
	if b, _ := os.ReadFile(file); !strings.Contains(string(b), "paths:") {
		t.Errorf("--force did not rewrite the file: %q", b)
	}
	runCLI(t, "", "init", filepath.Join(dir, "nope")).wantExit(t, exitFailure)
}

// With the flags of stand-ins and assumed objects (a later contourc), their
// keys are written, not commented out, and read back.
func TestInitConfigWithLaterFlags(t *testing.T) {
	keys := repoconfig.Keys(newRootCmd(IOStreams{}))
	keys["assume.secrets"] = repoconfig.Flag{Name: "assume-secret", Slice: true}
	keys["assume.services"] = repoconfig.Flag{Name: "assume-service", Slice: true}
	keys["standIns"] = repoconfig.Flag{Name: "no-stand-ins", Bool: true, Negate: true}
	for _, c := range []struct {
		repo string
		want []string
	}{
		{"overlays", []string{"\nassume:\n  secrets:\n    - \"platform/wildcard-tls:web\"", "\n  services:\n#     - \"platform/edge:PORT\"  # for Ingress platform/edge (platform/edge.yaml:1); port http referred to by name: write its number\n    - \"web/kibana-kb-http:5601/tls\""}},
		{"cert-manager", []string{"\nstandIns: true\n"}},
	} {
		sv, err := survey.Repository(filepath.Join(initDir, c.repo))
		if err != nil {
			t.Fatal(err)
		}
		text := initconfig.Write(sv, keys)
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: the file does not hold %q:\n%s", c.repo, w, text)
			}
		}
		if strings.Contains(text, "this contourc has no") {
			t.Errorf("%s: a key is commented out though its flag exists:\n%s", c.repo, text)
		}
	}
}
