package translate

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/contourc/contourc/loader"
)

// TestStatusOnly: skipping the Envoy resources changes neither the status
// nor the notices, on every golden case and the bundled example.
func TestStatusOnly(t *testing.T) {
	inputs, err := filepath.Glob("../testdata/golden/*/input")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	// A Service without endpoints gives a notice.
	lonely := filepath.Join(t.TempDir(), "lonely")
	if err := os.MkdirAll(lonely, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lonely, "proxy.yaml"), []byte(lonelyService), 0o600); err != nil {
		t.Fatal(err)
	}
	inputs = append(inputs, "../examples", lonely)
	notices := 0
	for _, in := range inputs {
		t.Run(in, func(t *testing.T) {
			loaded, err := loader.Load([]string{in}, loader.Options{})
			if err != nil {
				t.Fatal(err)
			}
			full, err := Translate(loaded.Objects, Options{})
			if err != nil {
				t.Fatal(err)
			}
			statusOnly, err := Translate(loaded.Objects, Options{StatusOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(full.Status, statusOnly.Status) {
				t.Error("status differs")
			}
			if !reflect.DeepEqual(full.Notices, statusOnly.Notices) {
				t.Errorf("notices %v, want %v", statusOnly.Notices, full.Notices)
			}
			if len(statusOnly.Resources.Listeners)+len(statusOnly.Resources.Clusters) != 0 {
				t.Error("resources were built")
			}
			notices += len(full.Notices)
		})
	}
	if notices == 0 {
		t.Error("no case has a notice: the comparison of notices proves nothing")
	}
}

const lonelyService = `apiVersion: v1
kind: Service
metadata: {name: lonely, namespace: default}
spec: {ports: [{port: 80}]}
---
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: lonely, namespace: default}
spec:
  virtualhost: {fqdn: lonely.example.com}
  routes: [{services: [{name: lonely, port: 80}]}]
`
