package translate

import (
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/contourc/contourc/loader"
)

// With Options.ADS every reference between resources (RDS, EDS, SDS, in
// typed configs too) is an ADS config source, and nothing else changes.
func TestADSConfigSources(t *testing.T) {
	inputs, _ := filepath.Glob("../testdata/golden/*/input")
	if len(inputs) == 0 {
		t.Fatal("no golden inputs")
	}
	for _, in := range inputs {
		t.Run(filepath.Base(filepath.Dir(in)), func(t *testing.T) {
			loaded, err := loader.Load([]string{in}, loader.Options{})
			if err != nil {
				t.Fatal(err)
			}
			contour, err := Translate(loaded.Objects, Options{})
			if err != nil {
				t.Fatal(err)
			}
			ads, err := Translate(loaded.Objects, Options{ADS: true})
			if err != nil {
				t.Fatal(err)
			}
			adsJSON, contourJSON := resourcesJSON(t, ads.Resources), resourcesJSON(t, contour.Resources)
			if strings.Contains(adsJSON, "api_config_source") {
				t.Error("an api_config_source is left with ADS")
			}
			// The same resources, but for the config sources.
			const contourSource = `{"api_config_source":{"api_type":"GRPC","transport_api_version":"V3","grpc_services":[{"envoy_grpc":{"cluster_name":"contour","authority":"contour"}}]},"resource_api_version":"V3"}`
			const adsSource = `{"ads":{},"resource_api_version":"V3"}`
			if got := strings.ReplaceAll(contourJSON, contourSource, adsSource); got != adsJSON {
				t.Error("ADS changed more than the config sources")
			}
		})
	}
}

// resourcesJSON prints every resource compactly, in a stable layout, with
// the packed configs expanded.
func resourcesJSON(t *testing.T, r Resources) string {
	t.Helper()
	var b strings.Builder
	for _, m := range resourceMessages(r) {
		js, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		// protojson varies its spacing; compact it so the two sides
		// compare.
		b.WriteString(strings.NewReplacer(" ", "", "\n", "").Replace(string(js)))
		b.WriteByte('\n')
	}
	return b.String()
}
