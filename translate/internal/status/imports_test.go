package status

import (
	"testing"

	"github.com/contourc/contourc/internal/importtest"
)

// TestImportsNothingAbove keeps status below translate/config and the
// processors, which build it (ARCHITECTURE.md): it may import only loader
// (an object's source), translate/dag/index (the objects' order),
// translate/dag and internal/, or the split would import upward.
func TestImportsNothingAbove(t *testing.T) {
	const m = importtest.Module
	for _, imp := range importtest.Contourc(t) {
		switch {
		case importtest.Internal(imp.Path), imp.Path == m+"/loader", imp.Path == m+"/translate/dag/index", imp.Path == m+"/translate/dag":
		default:
			t.Errorf("%s imports %s; status may import only loader, translate/dag/index, translate/dag and internal/", imp.File, imp.Path)
		}
	}
}
