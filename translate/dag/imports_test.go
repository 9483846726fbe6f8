package dag

import (
	"testing"

	"github.com/contourc/contourc/internal/importtest"
)

// TestImportsNothingAbove keeps dag the lowest layer of translate
// (ARCHITECTURE.md): the processors and the Envoy builders import it, so it
// may import no package of contourc but the shared helpers of internal/
// (internal/par, which freezing uses), or the split would import upward.
func TestImportsNothingAbove(t *testing.T) {
	for _, imp := range importtest.Contourc(t) {
		if !importtest.Internal(imp.Path) {
			t.Errorf("%s imports %s; dag must not import other packages of contourc", imp.File, imp.Path)
		}
	}
}
