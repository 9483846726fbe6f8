package main

import (
	"os/exec"
	"strings"
	"testing"
)

// heavyPackages are what contourc-engines links so that contourc does not:
// their package initialisation (Helm's template functions and chart
// utilities, the JSON Schema compiler, controller-runtime's client,
// client-go's type registry) would cost every run, `contourc version`
// included, 6-7 ms each, over the budget of issue 27. A prefix matches the
// package and those under it.
var heavyPackages = []string{
	"helm.sh/helm/v3/pkg/engine",
	"helm.sh/helm/v3/pkg/chartutil",
	"github.com/fluxcd/pkg/kustomize",
	"sigs.k8s.io/controller-runtime",
	"k8s.io/client-go/kubernetes/scheme",
	"github.com/santhosh-tekuri/jsonschema",
}

// TestNoEngineLinked fails when contourc's dependencies reach an engine
// that belongs in contourc-engines (see loader/engines).
func TestNoEngineLinked(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "github.com/contourc/contourc/cmd/contourc").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 100 {
		t.Fatalf("go list gave %d packages: not contourc's dependencies", len(deps))
	}
	for _, dep := range deps {
		for _, heavy := range heavyPackages {
			if dep == heavy || strings.HasPrefix(dep, heavy+"/") {
				t.Errorf("contourc links %s: run it in contourc-engines (loader/engines), not in contourc", dep)
			}
		}
	}
}

// TestEnginesLinked: the guard above can fail, since contourc-engines
// links what it looks for.
func TestEnginesLinked(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "github.com/contourc/contourc/cmd/contourc-engines").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := "\n" + string(out)
	for _, heavy := range heavyPackages {
		if !strings.Contains(deps, "\n"+heavy) {
			t.Errorf("contourc-engines does not link %s: is the list above still the engines'?", heavy)
		}
	}
}
