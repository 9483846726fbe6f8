package gatewayapi

import (
	"strings"
	"testing"

	"github.com/contourc/contourc/internal/importtest"
)

// TestImportsNothingAbove keeps the Gateway API processor below translate
// and beside the other processors (ARCHITECTURE.md): translate runs it, so
// of contourc it may import only the packages beneath the processors (the
// DAG and its index, the configuration, translate/internal), loader and
// the shared helpers of internal/, or the split would import upward.
func TestImportsNothingAbove(t *testing.T) {
	// Each allowed package with the packages below it.
	allowed := []string{"/translate/dag", "/translate/config", "/translate/internal", "/loader"}
	for _, imp := range importtest.Contourc(t) {
		ok := importtest.Internal(imp.Path)
		for _, a := range allowed {
			a = importtest.Module + a
			ok = ok || imp.Path == a || strings.HasPrefix(imp.Path, a+"/")
		}
		if !ok {
			t.Errorf("%s imports %s; gatewayapi may import only translate/dag, translate/config, translate/internal, loader and internal/", imp.File, imp.Path)
		}
	}
}
