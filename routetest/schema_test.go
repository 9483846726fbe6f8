package routetest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The JSON schema in docs/ documents the test file; this keeps its
// property names in step with the decoder's fields.
func TestSchemaMatchesDecoder(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "route-tests.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties map[string]any
		Defs       map[string]struct {
			Properties map[string]any
		} `json:"$defs"`
	}
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	keys := func(m map[string]any) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	expectDefs := schema.Defs["expect"].Properties
	for _, tt := range []struct {
		where  string
		schema map[string]any
		typ    any
	}{
		{"top level", schema.Properties, fileSpec{}},
		{"case", schema.Defs["case"].Properties, caseSpec{}},
		{"request", schema.Defs["request"].Properties, requestSpec{}},
		{"expect", expectDefs, Expect{}},
		{"expect.route", subProperties(expectDefs["route"]), RouteExpect{}},
		{"expect.redirect", subProperties(expectDefs["redirect"]), RedirectExpect{}},
		{"expect.directResponse", subProperties(expectDefs["directResponse"]), DirectResponseExpect{}},
		{"expect.retry", subProperties(expectDefs["retry"]), RetryExpect{}},
		{"share", schema.Defs["share"].Properties, ClusterExpect{}},
		{"headers", schema.Defs["headers"].Properties, HeadersExpect{}},
	} {
		if got, want := keys(tt.schema), yamlFields(tt.typ); !slices.Equal(got, want) {
			t.Errorf("%s: schema has %v, decoder %v", tt.where, got, want)
		}
	}
}

func subProperties(v any) map[string]any {
	m, _ := v.(map[string]any)
	p, _ := m["properties"].(map[string]any)
	return p
}

func yamlFields(v any) []string {
	var out []string
	rt := reflect.TypeOf(v)
	for i := 0; i < rt.NumField(); i++ {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("yaml"), ",")
		if name != "" {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
