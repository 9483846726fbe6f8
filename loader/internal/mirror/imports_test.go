package mirror

import (
	"testing"

	"github.com/contourc/contourc/internal/importtest"
)

// TestImportsNothingAbove keeps mirror beneath loader, which calls it: of
// contourc it may import only the object type loader hands it.
func TestImportsNothingAbove(t *testing.T) {
	importtest.Only(t, "mirror", "/loader/internal/object")
}
