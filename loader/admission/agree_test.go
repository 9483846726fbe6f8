package admission

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAgreesWithReference admits every object of the shared bad corpus's
// Gateway API cases (when present) both ways.
func TestAgreesWithReference(t *testing.T) {
	files, _ := filepath.Glob("../../../shared/conformance-bad/gwapi-*/input/*.yaml")
	files2, _ := filepath.Glob("/tmp/r100/40-routes.yaml")
	files = append(files, files2...)
	if len(files) == 0 {
		t.Skip("no shared corpus")
	}
	for _, f := range files {
		data, _ := os.ReadFile(f)
		for _, doc := range strings.Split(string(data), "\n---") {
			if strings.TrimSpace(doc) == "" {
				continue
			}
			a, b := parseObject(t, doc), parseObject(t, doc)
			gvk := gvkOf(a)
			if !Known(gvk) {
				continue
			}
			got, want := errorStrings(Admit(a, gvk)), errorStrings(referenceAdmit(t, b, gvk))
			if !slices.Equal(got, want) {
				t.Errorf("%s: %s %v\n got %q\nwant %q", f, gvk.Kind, a["metadata"], got, want)
			} else if strings.Contains(f, "gwapi") {
				t.Logf("%s: %q", filepath.Base(f), got)
			}
		}
	}
}
