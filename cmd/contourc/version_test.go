package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// goModVersion is the version go.mod requires of module path.
func goModVersion(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == path {
			return f[1]
		}
	}
	t.Fatalf("go.mod requires no %s", path)
	return ""
}

func TestVersionJSON(t *testing.T) {
	got := runCLI(t, "", "version", "-o", "json")
	got.wantExit(t, exitOK)
	var v versionInfo
	dec := json.NewDecoder(strings.NewReader(got.stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("version -o json: %v\n%s", err, got.stdout)
	}
	if v.Version != "dev" || v.GoVersion != runtime.Version() || v.Platform != runtime.GOOS+"/"+runtime.GOARCH {
		t.Errorf("version %q, Go %q, platform %q; want dev, %s, %s/%s", v.Version, v.GoVersion, v.Platform, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	}
	// The reproduced versions come from the build info, so they are the
	// ones go.mod pins.
	for _, m := range reproducedModules {
		if want := goModVersion(t, m.path); v.Reproduces[m.key] != want {
			t.Errorf("reproduces.%s = %q, want %q (go.mod's %s)", m.key, v.Reproduces[m.key], want, m.path)
		}
	}
	if len(v.Reproduces) != len(reproducedModules) {
		t.Errorf("reproduces = %v, want exactly %d keys", v.Reproduces, len(reproducedModules))
	}
}

func TestVersionBadFormat(t *testing.T) {
	got := runCLI(t, "", "version", "-o", "yaml")
	got.wantExit(t, exitFailure)
	if !strings.Contains(got.stderr, `invalid --output-format "yaml": want text or json`) {
		t.Errorf("stderr = %q", got.stderr)
	}
}
