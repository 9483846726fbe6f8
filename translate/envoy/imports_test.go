package envoy

import (
	"strings"
	"testing"

	"github.com/contourc/contourc/internal/importtest"
)

// TestImportsNothingAbove keeps envoy below translate (ARCHITECTURE.md):
// translate calls the builders, so envoy may import of contourc only the
// packages beneath the processors (the DAG, its index, the configuration)
// and the shared helpers of internal/, or the split would import upward.
func TestImportsNothingAbove(t *testing.T) {
	// Each allowed package with the packages below it.
	allowed := []string{"/translate/dag", "/translate/config", "/translate/internal"}
	for _, imp := range importtest.Contourc(t) {
		ok := importtest.Internal(imp.Path)
		for _, a := range allowed {
			a = importtest.Module + a
			ok = ok || imp.Path == a || strings.HasPrefix(imp.Path, a+"/")
		}
		if !ok {
			t.Errorf("%s imports %s; envoy may import only translate/dag, translate/config, translate/internal and internal/", imp.File, imp.Path)
		}
	}
}
