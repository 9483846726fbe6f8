package index

import (
	"slices"
	"testing"

	"github.com/contourc/contourc/internal/importtest"
)

// TestImportsNothingAbove keeps the index below the processors and the
// builders (ARCHITECTURE.md), which all import it: of contourc it may
// import only loader, whose objects it indexes, translate/dag, whose
// values its lookups return, and the shared helpers of internal/. An
// import of translate, or of a processor, would be an import upward.
func TestImportsNothingAbove(t *testing.T) {
	allowed := []string{importtest.Module + "/loader", importtest.Module + "/translate/dag"}
	for _, imp := range importtest.Contourc(t) {
		if !importtest.Internal(imp.Path) && !slices.Contains(allowed, imp.Path) {
			t.Errorf("%s imports %s; the index may import only %v of contourc", imp.File, imp.Path, allowed)
		}
	}
}
