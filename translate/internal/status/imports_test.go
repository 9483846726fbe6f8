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
	importtest.Only(t, "status", "/translate/dag", "/loader")
}
