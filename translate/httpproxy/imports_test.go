package httpproxy

import (
	"strings"
	"testing"

	"github.com/contourc/contourc/internal/importtest"
)

// TestImportsNothingAbove keeps the HTTPProxy processor below translate
// (ARCHITECTURE.md), which runs it: of contourc it may import only the
// DAG and its index, the configuration, translate/internal, loader (whose
// objects the Memo compares) and the shared helpers of internal/. An
// import of translate or of another processor would be an import upward
// or sideways.
func TestImportsNothingAbove(t *testing.T) {
	// Each allowed package with the packages below it.
	allowed := []string{"/translate/dag", "/translate/config", "/translate/internal"}
	for _, imp := range importtest.Contourc(t) {
		ok := importtest.Internal(imp.Path) || imp.Path == importtest.Module+"/loader"
		for _, a := range allowed {
			a = importtest.Module + a
			ok = ok || imp.Path == a || strings.HasPrefix(imp.Path, a+"/")
		}
		if !ok {
			t.Errorf("%s imports %s; httpproxy may import only translate/dag, translate/config, translate/internal, loader and internal/", imp.File, imp.Path)
		}
	}
}
