package envoy

import (
	"testing"

	"github.com/contourc/contourc/internal/importtest"
)

// TestImportsNothingAbove keeps envoy below translate (ARCHITECTURE.md):
// translate calls the builders, so envoy may import of contourc only the
// packages beneath the processors (the DAG, its index, the configuration)
// and the shared helpers of internal/, or the split would import upward.
func TestImportsNothingAbove(t *testing.T) {
	importtest.Only(t, "envoy", "/translate/dag", "/translate/config", "/translate/internal")
}
