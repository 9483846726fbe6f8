package httpproxy

import (
	"testing"

	"github.com/contourc/contourc/internal/importtest"
)

// TestImportsNothingAbove keeps the HTTPProxy processor below translate
// (ARCHITECTURE.md), which runs it: of contourc it may import only the
// DAG and its index, the configuration, translate/internal, loader (whose
// objects the Memo compares) and the shared helpers of internal/. An
// import of translate or of another processor would be an import upward
// or sideways.
func TestImportsNothingAbove(t *testing.T) {
	importtest.Only(t, "httpproxy", "/translate/dag", "/translate/config", "/translate/internal", "/loader")
}
