package admission

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/contourc/contourc/loader/admission/internal/crdgen"
)

// TestAdmit covers each step of admission on objects of the embedded
// CRDs: what the API server refuses (with its words) and accepts.
func TestAdmit(t *testing.T) {
	tests := []struct {
		name string
		obj  string
		want []string // substrings, one per error; none: admitted
	}{
		{"a valid route", `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: d}
spec:
  rules:
  - matches: [{path: {type: PathPrefix, value: /a}}]
    backendRefs: [{name: s, port: 80}]`, nil},
		{"CEL rule on a list item", `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r}
spec:
  rules:
  - backendRefs: [{name: s}]`, []string{"spec.rules[0].backendRefs[0]: Invalid value: Must have port for Service reference"}},
		{"CEL rule across list items", `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: g}
spec:
  gatewayClassName: c
  listeners:
  - {name: a, protocol: HTTP, port: 80}
  - {name: a, protocol: HTTP, port: 81}`, []string{
			"spec.listeners[1]: Duplicate value: {\"name\":\"a\"}",
			"spec.listeners: Invalid value: Listener name must be unique within the Gateway"}},
		{"enum", `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r}
spec:
  rules:
  - matches: [{method: FETCH}]`, []string{
			`spec.rules[0].matches[0].method: Unsupported value: "FETCH": supported values: "GET"`,
			"some validation rules were not checked"}},
		{"pattern", `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r}
spec:
  hostnames: [Upper.Example.com]`, []string{`spec.hostnames[0]: Invalid value: "Upper.Example.com": spec.hostnames[0] in body should match`}},
		{"maximum", `
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: p}
spec:
  routes:
  - services: [{name: s, port: 65536}]`, []string{"spec.routes[0].services[0].port: Invalid value: 65536: spec.routes[0].services[0].port in body should be less than 65536"}},
		{"type", `
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: p}
spec:
  routes:
  - services: [{name: s, port: "80"}]`, []string{`spec.routes[0].services[0].port: Invalid value: "string": spec.routes[0].services[0].port in body must be of type integer: "string"`,
			"some validation rules were not checked"}},
		{"required", `
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: p}
spec:
  routes:
  - services: [{port: 80}]`, []string{"spec.routes[0].services[0].name: Required value", "some validation rules were not checked"}},
		{"unknown field", `
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: p, colour: blue}
spec:
  virtualhost: {fqdn: a.example.com, fqnd: b}`, []string{`unknown field "metadata.colour"`, `unknown field "spec.virtualhost.fqnd"`}},
		{"list-map keys", `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r}
spec:
  rules:
  - matches: [{headers: [{name: a, value: x}, {name: a, value: z}]}]`, []string{`spec.rules[0].matches[0].headers[1]: Duplicate value: {"name":"a"}`}},
		{"a kind without rules", `
apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: {name: g}
spec:
  from: [{group: "", kind: Service}]
  to: [{group: "", kind: Service}]`, []string{"spec.from[0].namespace: Required value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := parseObject(t, tt.obj)
			got := errorStrings(Admit(obj, gvkOf(obj)))
			if len(got) != len(tt.want) {
				t.Fatalf("errors %q, want %d", got, len(tt.want))
			}
			for _, w := range tt.want {
				if !containsOne(got, w) {
					t.Errorf("errors %q, want one saying %q", got, w)
				}
			}
		})
	}
}

func containsOne(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// TestAdmitDefaults checks that the schema's defaults are applied, where
// fields are absent and nowhere else.
func TestAdmitDefaults(t *testing.T) {
	obj := parseObject(t, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r}
spec:
  parentRefs: [{name: g}]
  rules:
  - matches: [{path: {value: /a}}, {headers: [{name: h, value: v}]}]
    backendRefs: [{name: s, port: 80, weight: 0}]`)
	if errs := Admit(obj, gvkOf(obj)); len(errs) > 0 {
		t.Fatal(errs)
	}
	want := parseObject(t, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r}
spec:
  parentRefs: [{name: g, group: gateway.networking.k8s.io, kind: Gateway}]
  rules:
  - matches:
    - path: {type: PathPrefix, value: /a}
    - headers: [{name: h, value: v, type: Exact}]
      path: {type: PathPrefix, value: /}
    backendRefs: [{name: s, port: 80, weight: 0, group: "", kind: Service}]`)
	if !reflect.DeepEqual(obj, want) {
		t.Errorf("defaulted to\n%v\nwant\n%v", obj, want)
	}
}

// TestAdmitRemembersWhatRulesObserve admits many routes that differ only
// in what their rules do not read, and one that differs in what they do:
// the remembered outcomes must not hide its error.
func TestAdmitRemembersWhatRulesObserve(t *testing.T) {
	route := func(name, port string) map[string]any {
		return parseObject(t, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r}
spec:
  rules:
  - backendRefs: [{name: `+name+port+`}]`)
	}
	for _, name := range []string{"a", "b", "c"} {
		obj := route(name, ", port: 80")
		if errs := Admit(obj, gvkOf(obj)); len(errs) > 0 {
			t.Fatalf("route to %s: %v", name, errs)
		}
	}
	obj := route("d", "")
	if errs := errorStrings(Admit(obj, gvkOf(obj))); !containsOne(errs, "Must have port for Service reference") {
		t.Errorf("route without port: errors %q", errs)
	}
}

// TestObserved checks what the expression analysis finds rules look at.
func TestObserved(t *testing.T) {
	v, err := lookup(GVK{"gateway.networking.k8s.io", "v1", "HTTPRoute"})
	if err != nil {
		t.Fatal(err)
	}
	root, _ := v.compiled()
	root.children()
	spec := root.fields["spec"]
	spec.children()
	rules := spec.fields["rules"]
	rules.children()
	rules.items.children()
	backendRef := rules.items.fields["backendRefs"]
	backendRef.children()
	o := observed(backendRef.items.st)
	if o.whole || o.fields["name"] != nil {
		t.Errorf("a backendRef's rules observe %+v; the name is not among what they read", o)
	}
	for _, f := range []string{"group", "kind", "port"} {
		if o.fields[f] == nil {
			t.Errorf("a backendRef's rules do not observe %s", f)
		}
	}
	if !o.fields["group"].whole || !o.fields["kind"].whole {
		t.Error("group and kind are compared: they must be observed whole")
	}
}

// TestEmbeddedCRDsAreCurrent fails when crds.json.gz was not generated
// from the CRDs of the module versions go.mod requires: run go generate
// ./loader/admission.
func TestEmbeddedCRDsAreCurrent(t *testing.T) {
	gomod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Modules(), crdgen.Modules(gomod); !reflect.DeepEqual(got, want) {
		t.Fatalf("crds.json.gz is from %v, go.mod requires %v: run go generate ./loader/admission", got, want)
	}
	fresh, err := crdgen.Generate()
	if err != nil {
		t.Skipf("cannot read the modules' CRDs: %v", err)
	}
	if string(fresh) != string(embeddedJSON(t)) {
		t.Fatal("crds.json.gz differs from the CRDs in the module cache: run go generate ./loader/admission")
	}
}
