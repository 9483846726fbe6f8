package main

// Tests of check's -o github and --fail-on.

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// serviceWithoutEndpoints is a valid HTTPProxy whose Service has no
// endpoints in the input: a notice, not an error.
const serviceWithoutEndpoints = `apiVersion: v1
kind: Service
metadata:
  name: app
  namespace: default
spec:
  ports:
  - name: http
    port: 80
---
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata:
  name: app
  namespace: default
spec:
  virtualhost:
    fqdn: app.example.com
  routes:
  - services:
    - name: app
      port: 80
`

func writeManifest(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "app.yaml")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCheckGitHubAnnotations(t *testing.T) {
	invalid := filepath.Join(diffCasesDir, "status-invalid-recover", "new")
	got := runCLI(t, "", "check", "-o", "github", invalid)
	got.wantExit(t, exitFindings)
	want := "::error file=" + filepath.Join(invalid, "child.yaml") + ",line=1,title=HTTPProxy default/child is orphaned::" +
		"Orphaned: this HTTPProxy is not part of a delegation chain from a root HTTPProxy\n" +
		"::error file=" + filepath.Join(invalid, "shop.yaml") + ",line=1,title=HTTPProxy default/shop is invalid::" +
		`ServiceUnresolvedReference: Spec.Routes unresolved service reference: service "default/shop" not found` + "\n"
	if got.stdout != want {
		t.Errorf("stdout\n%s\nwant\n%s", got.stdout, want)
	}

	// A valid proxy with warnings in its status is a warning.
	lb := filepath.Join(repoRoot, "testdata", "golden", "load-balancing", "input")
	got = runCLI(t, "", "check", "-o", "github", lb)
	got.wantExit(t, exitOK)
	if !strings.HasPrefix(got.stdout, "::warning file="+filepath.Join(lb, "httpproxy.yaml")+",line=") ||
		!strings.Contains(got.stdout, ",title=HTTPProxy default/lb has warnings::IgnoredField: ") {
		t.Errorf("warnings of a valid HTTPProxy:\n%s", got.stdout)
	}

	// A notice is a warning on the object it is about.
	path := writeManifest(t, serviceWithoutEndpoints)
	got = runCLI(t, "", "check", "-o", "github", path)
	got.wantExit(t, exitOK)
	if want := "::warning file=" + path + ",line=1,title=Service default/app::port 80 has no endpoints in the input"; !strings.HasPrefix(got.stdout, want) {
		t.Errorf("stdout\n%s\nwant it to start with\n%s", got.stdout, want)
	}
}

func TestCheckFailOn(t *testing.T) {
	notice := writeManifest(t, serviceWithoutEndpoints)
	lb := filepath.Join(repoRoot, "testdata", "golden", "load-balancing", "input")
	invalid := filepath.Join(diffCasesDir, "status-invalid-recover", "new")
	clean := filepath.Join(diffCasesDir, "route-weight", "new")
	tests := []struct {
		failOn, path string
		code         int
		stderr       string
	}{
		{"error", notice, exitOK, ""},
		{"warning", notice, exitFindings, "contourc: 1 warning(s) (--fail-on warning)"},
		{"error", lb, exitOK, ""},
		{"warning", lb, exitFindings, "contourc: 2 warning(s) (--fail-on warning)"},
		{"error", invalid, exitFindings, "contourc: 2 of 3 object(s) not valid"},
		{"warning", invalid, exitFindings, "contourc: 2 of 3 object(s) not valid"},
		{"warning", clean, exitOK, ""},
	}
	for _, tt := range tests {
		for _, format := range []string{"table", "json", "github"} {
			got := runCLI(t, "", "check", "-o", format, "--fail-on", tt.failOn, tt.path)
			if got.code != tt.code || !strings.Contains(got.stderr, tt.stderr) {
				t.Errorf("check -o %s --fail-on %s %s: exit %d, want %d; stderr:\n%s", format, tt.failOn, tt.path, got.code, tt.code, got.stderr)
			}
		}
	}
	got := runCLI(t, "", "check", "--fail-on", "notice", clean)
	got.wantExit(t, exitFailure)
	if !strings.Contains(got.stderr, `invalid --fail-on "notice": want error, warning or skipped`) {
		t.Errorf("stderr:\n%s", got.stderr)
	}
}

func TestWriteAnnotationEscapes(t *testing.T) {
	var buf bytes.Buffer
	writeAnnotation(&buf, "error", "dir,with:odd/app.yaml", 3, "Kind ns/name: 100%", "line one\nline two: 50%\r")
	want := "::error file=dir%2Cwith%3Aodd/app.yaml,line=3,title=Kind ns/name%3A 100%25::line one%0Aline two: 50%25%0D\n"
	if buf.String() != want {
		t.Errorf("got  %q\nwant %q", buf.String(), want)
	}
	buf.Reset()
	writeAnnotation(&buf, "warning", "", 0, "contourc", "no source")
	if want := "::warning title=contourc::no source\n"; buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
}

// countingWriter counts the writes made to it.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

// check's output reaches standard output in a few large writes, whatever
// the format: the table writer alone wrote each cell and its padding.
func TestCheckWritesThroughABuffer(t *testing.T) {
	var manifest strings.Builder
	for i := range 200 {
		manifest.WriteString(strings.NewReplacer("name: app\n  namespace", "name: app"+strconv.Itoa(i)+"\n  namespace",
			"app.example.com", "app"+strconv.Itoa(i)+".example.com").Replace(serviceWithoutEndpoints))
		manifest.WriteString("---\n")
	}
	path := writeManifest(t, manifest.String())
	for _, format := range []string{"table", "json", "yaml", "github"} {
		out := &countingWriter{}
		var errOut bytes.Buffer
		run([]string{"check", "-o", format, path}, IOStreams{In: strings.NewReader(""), Out: out, ErrOut: &errOut})
		if out.Len() < 200*20 {
			t.Fatalf("-o %s: only %d bytes written: %s", format, out.Len(), errOut.String())
		}
		if out.writes > 4 {
			t.Errorf("-o %s: %d writes for %d bytes", format, out.writes, out.Len())
		}
	}
}
