package flux

// Kustomizations generate and charts render in the test process, not
// through contourc-engines (loader/engines' and loader/helmchart's own
// tests cover the helper).
import (
	_ "github.com/contourc/contourc/loader/flux/fluxgen"
	_ "github.com/contourc/contourc/loader/helmchart/helmrender"
)
