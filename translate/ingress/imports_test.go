package ingress

import (
	"testing"

	"github.com/contourc/contourc/internal/importtest"
)

// TestImportsNothingAbove keeps the Ingress processor below translate and
// beside the other processors (ARCHITECTURE.md): of contourc it may import
// only the DAG and its index, the configuration, translate/internal, loader
// and the shared helpers of internal/. An import of translate, of another
// processor or of the Envoy builders would be an import upward or across.
func TestImportsNothingAbove(t *testing.T) {
	importtest.Only(t, "ingress", "/translate/dag", "/translate/config", "/translate/internal", "/loader")
}
