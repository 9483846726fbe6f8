package lint

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/contourc/contourc/loader"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// sampleFindings are findings of each severity, one without a line, one
// from stdin and one built through a kustomization.
func sampleFindings() []Finding {
	fs := []Finding{
		{Rule: ruleShadowed, Severity: Error, Object: Object{Kind: "HTTPProxy", Namespace: "web", Name: "app"},
			Source: loader.Source{File: "manifests/app.yaml", Line: 12}, Message: `route "prefix /api/v1" on virtual host a.com can never match: route "regex /api/.*" of HTTPProxy web/app comes first`,
			Related: []Object{{Kind: "HTTPProxy", Namespace: "web", Name: "app"}}},
		{Rule: ruleCertExpiring, Severity: Warning, Object: Object{Kind: "Secret", Namespace: "web", Name: "tls"},
			Source: loader.Source{File: "base/secret.yaml", Line: 1, Via: "overlays/prod"}, Message: "the certificate in tls.crt expires on 2026-06-11, in 10 day(s) (--cert-expiry-days 21)"},
		{Rule: ruleListenerUnused, Severity: Info, Object: Object{Kind: "Gateway", Namespace: "infra", Name: "gw"},
			Source: loader.Source{File: "<stdin>", Line: 3}, Message: "listener admin has no route attached"},
		{Rule: ruleForeignAnnotation, Severity: Warning, Object: Object{Kind: "Ingress", Namespace: "web", Name: "old"},
			Source: loader.Source{File: "dir with space/ingress.yaml"}, Message: "annotation nginx.ingress.kubernetes.io/rewrite-target is another ingress controller's: Contour ignores it; in Contour, use an HTTPProxy route's pathRewritePolicy"},
	}
	sortFindings(fs)
	return fs
}

func TestOutputGoldens(t *testing.T) {
	for name, write := range map[string]func(*bytes.Buffer, []Finding) error{
		"findings.table.txt": func(b *bytes.Buffer, fs []Finding) error { return WriteTable(b, fs) },
		"findings.json":      func(b *bytes.Buffer, fs []Finding) error { return WriteJSON(b, fs) },
		"findings.sarif":     func(b *bytes.Buffer, fs []Finding) error { return WriteSARIF(b, fs) },
		"none.json":          func(b *bytes.Buffer, _ []Finding) error { return WriteJSON(b, nil) },
		"none.sarif":         func(b *bytes.Buffer, _ []Finding) error { return WriteSARIF(b, nil) },
	} {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := write(&b, sampleFindings()); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", name)
			if *update {
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(want, b.Bytes()) {
				t.Errorf("%s differs (go test ./lint -update):\n%s", golden, b.Bytes())
			}
		})
	}
}

func TestSlashPathURI(t *testing.T) {
	for _, c := range []struct {
		path string
		abs  bool
		want string
	}{
		{"manifests/app.yaml", false, "manifests/app.yaml"},
		{"./manifests/app.yaml", false, "manifests/app.yaml"},
		{"../shared/a b#1.yaml", false, "../shared/a%20b%231.yaml"},
		{"a:b/app.yaml", false, "./a:b/app.yaml"}, // not the scheme a
		{"/srv/repo/app.yaml", true, "file:///srv/repo/app.yaml"},
		{"C:/repo/app.yaml", true, "file:///C:/repo/app.yaml"}, // Windows: not the host C:
	} {
		if got := slashPathURI(c.path, c.abs); got != c.want {
			t.Errorf("slashPathURI(%q, %v) = %q, want %q", c.path, c.abs, got, c.want)
		}
	}
}
