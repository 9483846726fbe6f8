package manifest

import (
	"encoding/json"
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// decodeIntOrString decodes what it takes as IntOrString's UnmarshalJSON
// does from the value's JSON form, and leaves the rest to that path.
func TestDecodeIntOrStringAsJSONWould(t *testing.T) {
	for _, value := range []string{
		"8080", "0", "-1", "2147483647", "-2147483648", "0x1F", "0o17", "1_000", "+80",
		"2147483648", "-2147483649", "99999999999999999999",
		"http", `"8080"`, "'80'", `""`, "true", "1.5", "80.0", "~", "null", "[1]", "{a: 1}", "!!str 80", "!!int '80'",
	} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte("v: "+value+"\n"), &doc); err != nil {
			t.Fatalf("%s: %v", value, err)
		}
		n := doc.Content[0].Content[1]

		var fast intstr.IntOrString
		took := decodeIntOrString(n, reflect.ValueOf(&fast).Elem())

		var viaJSON intstr.IntOrString
		b, err := NodeToJSON(n)
		if err == nil {
			err = json.Unmarshal(b, &viaJSON)
		}
		common := value == "8080" || value == "http" || value == `"8080"`
		switch {
		case common && !took:
			t.Errorf("%s: left to the JSON path", value)
		case took && err != nil:
			t.Errorf("%s: decoded as %#v, but the JSON path fails: %v", value, fast, err)
		case took && fast != viaJSON:
			t.Errorf("%s: decoded as %#v, the JSON path gives %#v", value, fast, viaJSON)
		}
	}
	// Only IntOrString is taken.
	var s string
	if decodeIntOrString(&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "x"}, reflect.ValueOf(&s).Elem()) {
		t.Error("a string was taken for an IntOrString")
	}
}
