package engines_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contourc/contourc/loader/engines"
	"github.com/contourc/contourc/loader/engines/enginestest"
)

// TestFluxGenerateInHelper generates a Kustomization's file in the real
// contourc-engines program, as contourc does: this test package links
// neither engine.
func TestFluxGenerateInHelper(t *testing.T) {
	bin := enginestest.Build(t, t.TempDir())
	t.Setenv(engines.Env, bin)

	root := t.TempDir()
	dir := filepath.Join(root, "echo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	svc := "apiVersion: v1\nkind: Service\nmetadata:\n  name: echo\nspec:\n  ports:\n  - port: 80\n"
	if err := os.WriteFile(filepath.Join(dir, "service.yaml"), []byte(svc), 0o644); err != nil {
		t.Fatal(err)
	}
	ks := `{"apiVersion":"kustomize.toolkit.fluxcd.io/v1","kind":"Kustomization","metadata":{"name":"echo","namespace":"flux-system"},` +
		`"spec":{"path":"./echo","targetNamespace":"infra","interval":"10m","prune":true,"sourceRef":{"kind":"GitRepository","name":"flux-system"}}}`
	defer engines.Hold()()
	var gen engines.FluxGenerated
	err := engines.Call(engines.OpFluxGenerate, engines.FluxGenerateRequest{Root: root, Dir: dir, Kustomization: []byte(ks)}, &gen)
	if err != nil {
		t.Fatal(err)
	}
	if gen.File != filepath.Join(dir, "kustomization.yaml") {
		t.Errorf("file %s", gen.File)
	}
	for _, want := range []string{"namespace: infra", "- ./service.yaml"} {
		if !strings.Contains(string(gen.Data), want) {
			t.Errorf("generated file lacks %q:\n%s", want, gen.Data)
		}
	}
	if _, err := os.Stat(gen.File); err == nil {
		t.Errorf("the generator wrote %s; it must only return it", gen.File)
	}

	err = engines.Call(engines.OpFluxGenerate, engines.FluxGenerateRequest{Root: root, Dir: filepath.Join(root, "none"), Kustomization: []byte(ks)}, &gen)
	if err == nil || engines.IsHelperError(err) {
		t.Errorf("error %v, want the generator's own for a missing directory", err)
	}
}
