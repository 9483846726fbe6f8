package admission

import (
	"encoding/json"

	"os"
	"path/filepath"
	"sigs.k8s.io/yaml"
	"slices"
	"strings"
	"testing"
)

// TestAgreesWithReference admits the objects of the shared corpora (when
// present) both with Admit and with the API server's whole-CRD validators:
// the outcomes must be the same, errors and all.
func TestAgreesWithReference(t *testing.T) {
	files, _ := filepath.Glob("../../../shared/conformance-bad/*/input/*.yaml")
	more, _ := filepath.Glob("../../../shared/conformance/*/*/input/*.yaml")
	files = append(files, more...)
	if len(files) == 0 {
		t.Skip("no shared corpus")
	}
	for _, f := range files {
		data, _ := os.ReadFile(f)
		for _, doc := range strings.Split(string(data), "\n---") {
			if strings.TrimSpace(doc) == "" {
				continue
			}
			a, b := tryParse(doc), tryParse(doc)
			if a == nil {
				continue
			}
			gvk := gvkOf(a)
			if !Known(gvk) {
				continue
			}
			got, want := errorStrings(Admit(a, gvk)), errorStrings(referenceAdmit(t, b, gvk))
			if !slices.Equal(got, want) {
				t.Errorf("%s: %s %v\n got %q\nwant %q", f, gvk.Kind, a["metadata"], got, want)
			}
		}
	}
}

// tryParse is parseObject for documents that may not be objects.
func tryParse(doc string) map[string]any {
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(doc), &obj); err != nil || obj == nil {
		return nil
	}
	b, err := json.Marshal(obj)
	if err != nil || unmarshalJSON(b, &obj) != nil {
		return nil
	}
	return obj
}
