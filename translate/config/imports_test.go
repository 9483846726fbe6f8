package config

import (
	"strings"
	"testing"

	"github.com/contourc/contourc/internal/importtest"
)

// TestImportsNothingAbove keeps config below the processors and the Envoy
// builders (ARCHITECTURE.md), which read its Settings: of translate it may
// import only translate/dag (the values settings are made of),
// translate/internal/status (the notices it returns) and
// translate/internal/httpheader (the header checks of default header
// policies), or the split would import upward.
func TestImportsNothingAbove(t *testing.T) {
	const translate = importtest.Module + "/translate"
	for _, imp := range importtest.Contourc(t) {
		if imp.Path == translate || strings.HasPrefix(imp.Path, translate+"/") && imp.Path != translate+"/dag" && imp.Path != translate+"/internal/status" && imp.Path != translate+"/internal/httpheader" {
			t.Errorf("%s imports %s; config may import only translate/dag, translate/internal/status and translate/internal/httpheader of translate", imp.File, imp.Path)
		}
	}
}
