package loader

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
)

// TestBOMAndCRLF checks that a file saved by a Windows editor reads like
// any other, line numbers included.
func TestBOMAndCRLF(t *testing.T) {
	res := mustLoad(t, "testdata/ok/bom-crlf.yaml")
	svc := find(t, res, "Service", "default", "kuard")
	if svc.Source.Line != 2 || svc.Source.Doc != 0 {
		t.Errorf("Service source = %+v, want line 2, doc 0", svc.Source)
	}
	proxy := find(t, res, "HTTPProxy", "default", "kuard")
	if proxy.Source.Line != 10 || proxy.Source.Doc != 1 {
		t.Errorf("HTTPProxy source = %+v, want line 10, doc 1", proxy.Source)
	}
	set := proxy.Obj.(*contourv1.HTTPProxy).Spec.Routes[0].RequestHeadersPolicy.Set[0]
	if set.Value != "two\nlines\n" {
		t.Errorf("block scalar = %q, want CR-free %q", set.Value, "two\nlines\n")
	}
}

// TestKubectlList checks `kubectl get -o yaml` output: a v1 List whose
// items carry status and server-written metadata.
func TestKubectlList(t *testing.T) {
	res := mustLoad(t, "testdata/ok/list.yaml")
	o := find(t, res, "HTTPProxy", "default", "echo")
	if o.Source.Line != 6 {
		t.Errorf("item source line = %d, want 6 (the item's first key)", o.Source.Line)
	}
	p := o.Obj.(*contourv1.HTTPProxy)
	if p.Generation != 3 {
		t.Errorf("generation = %d, want 3 as written", p.Generation)
	}
	if p.ManagedFields != nil {
		t.Errorf("managedFields kept: %v", p.ManagedFields)
	}
	if p.CreationTimestamp.IsZero() || p.ResourceVersion != "205411" {
		t.Errorf("creationTimestamp/resourceVersion not kept: %v %q", p.CreationTimestamp, p.ResourceVersion)
	}
	if p.Status.CurrentStatus != "" {
		t.Errorf("status was read: %+v", p.Status)
	}
	svc := find(t, res, "Service", "default", "echo").Obj.(*corev1.Service)
	if got := svc.Spec.Ports[0].TargetPort.String(); got != "http" {
		t.Errorf("targetPort = %q, want the named port http", got)
	}
	if res.Skipped["apps/v1/Deployment"] != 1 {
		t.Errorf("Skipped = %v, want the Deployment counted", res.Skipped)
	}
}

// TestJSON checks concatenated JSON objects and a JSON List holding a
// typed list, with line numbers.
func TestJSON(t *testing.T) {
	res := mustLoad(t, "testdata/ok/objects.json", "testdata/ok/list.json")
	one := find(t, res, "Service", "default", "one")
	two := find(t, res, "Service", "default", "two")
	if one.Source.Line != 1 || two.Source.Line != 7 || two.Source.Doc != 1 {
		t.Errorf("sources = %+v, %+v; want lines 1 and 7, docs 0 and 1", one.Source, two.Source)
	}
	if name := two.Obj.(*corev1.Service).Spec.Ports[0].Name; name != "http" {
		t.Errorf("escaped port name = %q, want http", name)
	}
	ing := find(t, res, "Ingress", "shop", "web")
	if ing.Source.Line != 5 { // the line of the item's "{"
		t.Errorf("Ingress line = %d, want 5", ing.Source.Line)
	}
	if port := ing.Obj.(*networkingv1.Ingress).Spec.DefaultBackend.Service.Port.Number; port != 80 {
		t.Errorf("backend port = %d, want 80", port)
	}
	nested := find(t, res, "HTTPProxy", "shop", "nested")
	if nested.Source.Line != 22 {
		t.Errorf("nested list item line = %d, want 22", nested.Source.Line)
	}
}

// TestEmptyInputs checks that files with no objects are fine.
func TestEmptyInputs(t *testing.T) {
	res := mustLoad(t, "testdata/ok/empty.yaml", "testdata/ok/separators.yaml")
	if len(res.Objects) != 0 {
		t.Errorf("got %d objects from empty inputs", len(res.Objects))
	}
}

// TestStdin checks reading "-", YAML and JSON alike.
func TestStdin(t *testing.T) {
	for name, text := range map[string]string{
		"yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n",
		"json": `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}}{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm2"}}`,
		// Starts like JSON but is YAML flow style.
		"yaml flow": "{apiVersion: v1, kind: ConfigMap, metadata: {name: cm}}\n",
	} {
		t.Run(name, func(t *testing.T) {
			res, err := Load([]string{"-"}, Options{Stdin: strings.NewReader(text)})
			if err != nil {
				t.Fatal(err)
			}
			o := find(t, res, "ConfigMap", "default", "cm")
			if o.Source.File != "<stdin>" || o.Source.Line != 1 {
				t.Errorf("source = %+v, want <stdin>:1", o.Source)
			}
		})
	}
}

// TestAliasesAndMergeKeys checks that YAML anchors, aliases and merge keys
// work as kubectl's YAML reader treats them.
func TestAliasesAndMergeKeys(t *testing.T) {
	text := `apiVersion: v1
kind: Service
metadata:
  name: web
  labels: &labels
    app: web
    tier: front
  annotations:
    <<: *labels
    tier: overridden
spec:
  selector: *labels
  ports:
  - &port {name: http, port: 80}
  - <<: *port
    name: alt
    port: 81
`
	res, err := Load([]string{"-"}, Options{Stdin: strings.NewReader(text)})
	if err != nil {
		t.Fatal(err)
	}
	svc := find(t, res, "Service", "default", "web").Obj.(*corev1.Service)
	if svc.Spec.Selector["tier"] != "front" || svc.Annotations["tier"] != "overridden" || svc.Annotations["app"] != "web" {
		t.Errorf("aliases/merge: selector %v, annotations %v", svc.Spec.Selector, svc.Annotations)
	}
	if p := svc.Spec.Ports[1]; p.Name != "alt" || p.Port != 81 {
		t.Errorf("merged port = %+v", p)
	}
}

// TestPlainMaps: maps of strings (labels, annotations, selectors) and of
// bytes (a Secret's data) take keys as strings whatever they look like,
// and a null value as the empty one.
func TestPlainMaps(t *testing.T) {
	text := `apiVersion: v1
kind: Service
metadata:
  name: web
  labels: {app: web, "80": port, 443: tls, empty: "", none: null}
spec:
  selector: {}
  ports: [{port: 80}]
---
apiVersion: v1
kind: Secret
metadata: {name: s}
data:
  a: aGVsbG8=
  b: ""
  c: null
stringData: {d: plain}
`
	res, err := Load([]string{"-"}, Options{Stdin: strings.NewReader(text)})
	if err != nil {
		t.Fatal(err)
	}
	svc := find(t, res, "Service", "default", "web").Obj.(*corev1.Service)
	wantLabels := map[string]string{"app": "web", "80": "port", "443": "tls", "empty": "", "none": ""}
	if !reflect.DeepEqual(svc.Labels, wantLabels) {
		t.Errorf("labels %#v, want %#v", svc.Labels, wantLabels)
	}
	if svc.Spec.Selector == nil || len(svc.Spec.Selector) != 0 {
		t.Errorf("selector %#v, want an empty map", svc.Spec.Selector)
	}
	secret := find(t, res, "Secret", "default", "s").Obj.(*corev1.Secret)
	// stringData is merged into data, as the API server does.
	wantData := map[string][]byte{"a": []byte("hello"), "b": {}, "c": nil, "d": []byte("plain")}
	if len(secret.Data) != len(wantData) {
		t.Fatalf("data %q, want %q", secret.Data, wantData)
	}
	for k, v := range wantData {
		got, ok := secret.Data[k]
		if !ok || string(got) != string(v) {
			t.Errorf("data[%q] = %q (present %v), want %q", k, got, ok, v)
		}
	}
}

// TestScalarForms checks the YAML spellings of numbers and booleans that
// kubectl accepts, and that quoting makes a string.
func TestScalarForms(t *testing.T) {
	text := `apiVersion: v1
kind: Service
metadata:
  name: web
  annotations:
    quoted: "80"
    stamp: 2025-07-12T20:47:53Z
spec:
  publishNotReadyAddresses: yes
  ports:
  - {name: a, port: 0x50}
  - {name: b, port: 8_080}
  - {name: c, port: 9000.0}
`
	res, err := Load([]string{"-"}, Options{Stdin: bytes.NewReader([]byte(text))})
	if err != nil {
		t.Fatal(err)
	}
	svc := find(t, res, "Service", "default", "web").Obj.(*corev1.Service)
	if svc.Annotations["quoted"] != "80" || svc.Annotations["stamp"] != "2025-07-12T20:47:53Z" {
		t.Errorf("annotations = %v", svc.Annotations)
	}
	if !svc.Spec.PublishNotReadyAddresses {
		t.Error("yes was not read as true")
	}
	for i, want := range []int32{80, 8080, 9000} {
		if got := svc.Spec.Ports[i].Port; got != want {
			t.Errorf("port %d = %d, want %d", i, got, want)
		}
	}
}

// TestDocumentSplitting checks the splitting of YAML streams at document
// markers: directives and comment-only preambles, empty documents, "..."
// end markers, and "---" inside a block scalar (indented, so not a
// marker).
func TestDocumentSplitting(t *testing.T) {
	text := `%YAML 1.1
# preamble
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: first
data:
  script: |
    echo one
    ---
    echo two
---
---
# empty document above
apiVersion: v1
kind: ConfigMap
metadata:
  name: second
...
apiVersion: v1
kind: ConfigMap
metadata: {name: third}
--- # a comment on the marker
{apiVersion: v1, kind: ConfigMap, metadata: {name: fourth}}
`
	res, err := Load([]string{"-"}, Options{Stdin: strings.NewReader(text)})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct {
		name      string
		line, doc int
	}{{"first", 4, 0}, {"second", 16, 1}, {"third", 21, 2}, {"fourth", 25, 3}} {
		o := find(t, res, "ConfigMap", "default", want.name)
		if o.Source.Line != want.line || o.Source.Doc != want.doc {
			t.Errorf("%s at %+v, want line %d doc %d", want.name, o.Source, want.line, want.doc)
		}
	}
	data := find(t, res, "ConfigMap", "default", "first").Obj.(*corev1.ConfigMap).Data
	if data["script"] != "echo one\n---\necho two\n" {
		t.Errorf("block scalar = %q", data["script"])
	}
}
