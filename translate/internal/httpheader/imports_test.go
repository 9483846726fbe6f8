package httpheader

import (
	"testing"

	"github.com/contourc/contourc/internal/importtest"
)

// TestImportsNothingOfContourc keeps httpheader beneath every package of
// translate (ARCHITECTURE.md), which may all import it: it imports no
// package of contourc at all, or the split would import upward.
func TestImportsNothingOfContourc(t *testing.T) {
	for _, imp := range importtest.Contourc(t) {
		t.Errorf("%s imports %s; httpheader must import no package of contourc", imp.File, imp.Path)
	}
}
