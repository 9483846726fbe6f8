package gatewayapi

import (
	"testing"

	"github.com/contourc/contourc/internal/importtest"
)

// TestImportsNothingAbove keeps the Gateway API processor below translate
// and beside the other processors (ARCHITECTURE.md): translate runs it, so
// of contourc it may import only the packages beneath the processors (the
// DAG and its index, the configuration, translate/internal), loader and
// the shared helpers of internal/, or the split would import upward.
func TestImportsNothingAbove(t *testing.T) {
	importtest.Only(t, "gatewayapi", "/translate/dag", "/translate/config", "/translate/internal", "/loader")
}
