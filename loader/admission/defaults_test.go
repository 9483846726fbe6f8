package admission

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apimachinery/pkg/runtime"
)

// defaultingCases have defaults at every kind of place: properties of
// maps (a missing field, a null one), list items, nulls in lists and
// maps, and places with none.
var defaultingCases = []string{
	`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: ns}
spec:
  parentRefs: [{name: gw}]
  rules:
  - backendRefs: [{name: a, port: 80}, {name: b, port: 80, weight: 3}]
  - matches: [{path: {value: /x}}, {headers: [{name: h, value: v}]}, null]
    backendRefs: null
  - null
`,
	`apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: ns, labels: {a: null}}
spec:
  gatewayClassName: c
  listeners:
  - {name: http, port: 80, protocol: HTTP}
  - {name: https, port: 443, protocol: HTTPS, hostname: null, tls: {certificateRefs: [{name: s}]}, allowedRoutes: {}}
`,
	`apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: p, namespace: ns}
spec:
  virtualhost: {fqdn: a.example.com}
  routes:
  - conditions: [{prefix: /}]
    services: [{name: s, port: 80}]
    loadBalancerPolicy: {strategy: Cookie}
    retryPolicy: {count: 3}
`,
}

// TestDefaultsAgreeWithAPIServer defaults objects both with applyDefaults
// and with the API server's walk over the whole schema: the results must
// be equal.
func TestDefaultsAgreeWithAPIServer(t *testing.T) {
	objs := []map[string]any{}
	for _, c := range defaultingCases {
		objs = append(objs, parseObject(t, c))
	}
	files, _ := filepath.Glob("../../../shared/conformance/*/*/input/*.yaml")
	for _, f := range files {
		data, _ := os.ReadFile(f)
		for _, doc := range strings.Split(string(data), "\n---") {
			if obj := tryParse(doc); obj != nil {
				objs = append(objs, obj)
			}
		}
	}
	defaulted := 0
	for _, obj := range objs {
		gvk := gvkOf(obj)
		if !Known(gvk) {
			continue
		}
		v, err := lookup(gvk)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := v.compiled(); err != nil {
			t.Fatal(err)
		}
		got, want := runtime.DeepCopyJSON(obj), runtime.DeepCopyJSON(obj)
		applyDefaults(got, v)
		structuraldefaulting.Default(want, v.structural)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s %v:\n got %v\nwant %v", gvk.Kind, obj["metadata"], got, want)
		}
		if !reflect.DeepEqual(got, obj) {
			defaulted++
		}
	}
	if defaulted < len(defaultingCases) {
		t.Errorf("only %d objects were given defaults; the cases must have some", defaulted)
	}
}
