package loader

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sharedCorpus is where the project's conformance corpus lives when it is
// available; the tests here skip without it.
const sharedCorpus = "/work/shared"

// knownGaps are corpus cases that cannot load until something outside the
// loader changes, with the reason. Keep this empty whenever possible.
var knownGaps = map[string]string{
	// Contour main (which produced the corpus) has
	// jwtProviders[].localJWKS; the Go types of the released
	// github.com/projectcontour/contour v1.33.8 in go.mod do not, so strict
	// decoding rightly calls it an unknown field.
	"contour/docs-config-jwt-verification-L98": "needs projectcontour/contour apis newer than v1.33.8 (localJWKS)",
}

// TestConformanceCorpus loads the input of every conformance case. They
// are real manifests a cluster accepted, so every one must load, except
// those marked REJECTED, which the API server would have refused.
func TestConformanceCorpus(t *testing.T) {
	cases := corpusCases(t, filepath.Join(sharedCorpus, "conformance"))
	for _, dir := range cases {
		name, _ := filepath.Rel(filepath.Join(sharedCorpus, "conformance"), dir)
		t.Run(name, func(t *testing.T) {
			if why := knownGaps[name]; why != "" {
				t.Skip(why)
			}
			_, rejected := os.Stat(filepath.Join(dir, "REJECTED"))
			res, err := Load([]string{filepath.Join(dir, "input")}, Options{})
			if rejected == nil {
				if err == nil {
					t.Fatalf("case is REJECTED but loaded %d objects", len(res.Objects))
				}
				requireNamesAFile(t, err, filepath.Join(dir, "input"))
				return
			}
			if err != nil {
				t.Fatalf("load failed:\n%v", err)
			}
		})
	}
}

// TestConformanceBadCorpus loads the deliberately broken inputs: those
// expected to fail parsing or be rejected must fail naming the file; those
// that are fine for the API server (their problems are translation's to
// report) must load.
func TestConformanceBadCorpus(t *testing.T) {
	root := filepath.Join(sharedCorpus, "conformance-bad")
	for _, dir := range corpusCases(t, root) {
		expect, err := os.ReadFile(filepath.Join(dir, "EXPECT"))
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			input := filepath.Join(dir, "input")
			res, err := Load([]string{input}, Options{})
			want := strings.TrimSpace(string(expect))
			if refused, ok := apiServerRefuses[filepath.Base(dir)]; ok {
				t.Logf("EXPECT %s, but the API server refuses %s", want, refused)
				want = "reject-object"
			}
			switch want {
			case "parse-error", "reject-object":
				if err == nil {
					t.Fatalf("EXPECT %s, but loaded %d objects", want, len(res.Objects))
				}
				requireNamesAFile(t, err, input)
				t.Logf("%s: %v", want, err)
			case "accept", "semantic-error":
				if err != nil {
					t.Fatalf("EXPECT %s, but load failed:\n%v", want, err)
				}
			default:
				t.Fatalf("unknown EXPECT %q", want)
			}
		})
	}
}

// apiServerRefuses names the bad-input cases whose EXPECT says the API
// server would admit them when kube-apiserver refuses them, and what it
// refuses: contourc admits exactly what the API server admits.
var apiServerRefuses = map[string]string{
	// HTTPProxy's CRD requires spec (`spec: Required value`), and
	// networking/v1 validation refuses an Ingress with neither rules nor
	// a default backend.
	"null-and-empty-specs": "HTTPProxies without spec and an Ingress with spec: {}",
}

// corpusCases lists the case directories (those with an input/) under
// root, skipping the test when the corpus is not there.
func corpusCases(t *testing.T, root string) []string {
	t.Helper()
	if _, err := os.Stat(root); err != nil {
		t.Skipf("corpus not available: %v", err)
	}
	var cases []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "input" {
			cases = append(cases, filepath.Dir(path))
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Skipf("no cases under %s", root)
	}
	return cases
}

// requireNamesAFile checks that every error is an *Error naming a file of
// the input directory.
func requireNamesAFile(t *testing.T, err error, input string) {
	t.Helper()
	for _, e := range unjoin(err) {
		var le *Error
		if !errors.As(e, &le) {
			t.Errorf("error is not a *loader.Error: %v", e)
			continue
		}
		if !strings.HasPrefix(le.Source.File, input) {
			t.Errorf("error does not name a file under %s: %v", input, e)
		}
	}
}

// unjoin splits an errors.Join error into its parts.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
