package ingress

import (
	"slices"
	"strings"
	"testing"

	"github.com/contourc/contourc/internal/importtest"
)

// TestImportsNothingAbove keeps the Ingress processor below translate and
// beside the other processors (ARCHITECTURE.md): of contourc it may import
// only the DAG and its index, the configuration, translate/internal, loader
// and the shared helpers of internal/. An import of translate, of another
// processor or of the Envoy builders would be an import upward or across.
func TestImportsNothingAbove(t *testing.T) {
	allowed := []string{"/loader", "/translate/dag", "/translate/dag/index", "/translate/config"}
	for _, imp := range importtest.Contourc(t) {
		ok := importtest.Internal(imp.Path) ||
			strings.HasPrefix(imp.Path, importtest.Module+"/translate/internal/") ||
			slices.ContainsFunc(allowed, func(a string) bool { return imp.Path == importtest.Module+a })
		if !ok {
			t.Errorf("%s imports %s; the Ingress processor may import only %v, translate/internal and internal/ of contourc", imp.File, imp.Path, allowed)
		}
	}
}
