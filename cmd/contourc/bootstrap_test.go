package main

import (
	"os"
	"path/filepath"
	"testing"

	bootstrapv3 "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"sigs.k8s.io/yaml"

	"github.com/contourc/contourc/render"
)

// TestBootstrapIsSelfContained renders every supported conformance case as
// a static bootstrap through the CLI, reads the YAML back as Envoy would,
// and checks what `envoy -c` needs: the bootstrap validates, no xDS
// ConfigSource is left, and every cluster a route or proxy names and every
// secret a listener names is in the file.
func TestBootstrapIsSelfContained(t *testing.T) {
	if _, err := os.Stat(conformanceDir); err != nil {
		t.Skipf("no conformance corpus at %s: %v", conformanceDir, err)
	}
	cases, err := supportedCases(conformanceDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range cases {
		name, _ := filepath.Rel(conformanceDir, dir)
		if _, gap := knownGaps[name]; gap || fileExists(filepath.Join(dir, "REJECTED")) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			args, err := caseArgs(dir)
			if err != nil {
				t.Fatal(err)
			}
			got := runCLI(t, "", append(append([]string{"render", "-o", "yaml"}, args...), filepath.Join(dir, "input"))...)
			got.wantExit(t, exitOK)
			b := readBootstrap(t, []byte(got.stdout))
			if err := b.ValidateAll(); err != nil {
				t.Error(err)
			}
			if err := render.CheckStatic(b); err != nil {
				t.Error(err)
			}
			if err := render.CheckBootstrapReferences(b); err != nil {
				t.Error(err)
			}
		})
	}
}

// readBootstrap parses bootstrap YAML the way Envoy does: YAML to JSON, then
// the proto's JSON mapping, rejecting unknown fields.
func readBootstrap(t *testing.T, y []byte) *bootstrapv3.Bootstrap {
	t.Helper()
	j, err := yaml.YAMLToJSON(y)
	if err != nil {
		t.Fatalf("bootstrap is not YAML: %v", err)
	}
	var b bootstrapv3.Bootstrap
	if err := protojson.Unmarshal(j, &b); err != nil {
		t.Fatalf("bootstrap does not parse as an Envoy bootstrap: %v", err)
	}
	return &b
}
