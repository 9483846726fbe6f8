package loader

import (
	"errors"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/contourc/contourc/loader/internal/manifest"
)

// TestAdmissionErrorsAtTheirFields checks that every refused custom
// resource of a run is reported, each error at the line of the field it
// names, with the object and the API server's message.
func TestAdmissionErrorsAtTheirFields(t *testing.T) {
	const path = "testdata/admission/two-bad.yaml"
	_, err := Load([]string{path}, Options{})
	if err == nil {
		t.Fatal("loaded, want errors")
	}
	want := []string{
		path + ":12: Gateway default/gw: spec.listeners[1]: Duplicate value: {\"name\":\"http\"}",
		path + ":8: Gateway default/gw: spec.listeners: Invalid value: Listener name must be unique within the Gateway",
		path + ":24: HTTPRoute default/route: spec.rules[0].backendRefs[0].port: Invalid value: 800080: spec.rules[0].backendRefs[0].port in body should be less than or equal to 65535",
		path + ":33: HTTPProxy team/proxy: spec.virtualhost.fqdn: Invalid value: \"Upper.example.com\": spec.virtualhost.fqdn in body should match",
	}
	got := strings.Split(err.Error(), "\n")
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || strings.HasPrefix(g, w)
		}
		if !found {
			t.Errorf("no error %q in\n%s", w, err)
		}
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Errorf("%T is not a *loader.Error", err)
	}
}

// TestAdmissionWithMetadataErrors checks that a custom resource refused
// by its schema also gets the errors on its metadata, first, as the API
// server reports them together.
func TestAdmissionWithMetadataErrors(t *testing.T) {
	text := "apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata:\n  name: Bad_Name\nspec:\n  virtualhost: {fqdn: 3}\n"
	_, err := Load([]string{"-"}, Options{Stdin: strings.NewReader(text)})
	if err == nil {
		t.Fatal("loaded, want errors")
	}
	got := strings.Split(err.Error(), "\n")
	if len(got) < 2 || !strings.HasPrefix(got[0], `<stdin>:4: HTTPProxy default/Bad_Name: metadata.name: Invalid value: "Bad_Name"`) ||
		!strings.HasPrefix(got[1], "<stdin>:6: HTTPProxy default/Bad_Name: spec.virtualhost.fqdn: Invalid value:") {
		t.Errorf("errors:\n%s\nwant the name's, then the schema's", err)
	}
}

// TestFieldLine checks the line found for the field paths the API server
// names.
func TestFieldLine(t *testing.T) {
	docs := parseTestYAML(t, `a:
  b:
  - c: 1
  - c: 2
    d:
      e.f: x
`)
	for path, want := range map[string]int{
		"":              1,
		"a":             1,
		"a.b":           2,
		"a.b[1]":        4,
		"a.b[1].d":      5,
		"a.b[1].d[e.f]": 6,
		"a.b[7].c":      2,
		"a.zz":          1,
	} {
		if got := fieldLine(docs, path); got != want {
			t.Errorf("fieldLine(%q) = %d, want %d", path, got, want)
		}
	}
}

func parseTestYAML(t *testing.T, text string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Content[0]
}

// TestYAML11Booleans checks that the unquoted words kubectl's YAML reader
// takes for booleans reach admission as booleans, and quoted ones as
// strings.
func TestYAML11Booleans(t *testing.T) {
	obj, errs := manifest.ToUnstructured(parseTestYAML(t, "a: yes\nb: \"yes\"\nc: Off\nd: 80.0\ne: 1.5\nf: 2024-01-01\n"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := map[string]any{"a": true, "b": "yes", "c": false, "d": int64(80), "e": 1.5, "f": "2024-01-01"}
	for k, v := range want {
		if obj[k] != v {
			t.Errorf("%s = %#v, want %#v", k, obj[k], v)
		}
	}
}
