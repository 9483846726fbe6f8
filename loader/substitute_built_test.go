package loader

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"

	"github.com/contourc/contourc/internal/testfs"
	"github.com/contourc/contourc/loader/internal/manifest"
)

// fluxTree is a base whose files hold Flux variables and an overlay that
// patches it: what Flux's kustomize-controller builds, then substitutes.
var fluxTree = map[string]string{
	"base/kustomization.yaml": "resources:\n- proxy.yaml\n- other.yaml\n",
	"base/proxy.yaml": `apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata:
  name: web
  annotations:
    example.com/literal: $${NOT_A_VARIABLE}
spec:
  virtualhost:
    fqdn: web.${CLUSTER_DOMAIN}
  routes:
  - services:
    - name: web
      port: 80
`,
	"base/other.yaml": `apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata:
  name: other
  annotations:
    example.com/domain: ${CLUSTER_DOMAIN}
spec:
  virtualhost:
    fqdn: other.example.com
`,
	// Variables in the kustomization and in a patch are Flux's too: it
	// substitutes what the build made.
	"prod/kustomization.yaml": "resources:\n- ../base\nnamespace: ${NAMESPACE}\npatches:\n- path: timeout.yaml\n",
	"prod/timeout.yaml": `apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata:
  name: web
spec:
  routes:
  - services:
    - name: web
      port: "${PORT}"
    timeoutPolicy:
      response: ${WEB_TIMEOUT:=30s}
`,
	// An overlay that turns substitution off for one object.
	"disabled/kustomization.yaml": "resources:\n- ../base\nnamespace: prod\npatches:\n- path: disable.yaml\n",
	"disabled/disable.yaml":       "apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata:\n  name: other\n  annotations:\n    kustomize.toolkit.fluxcd.io/substitute: disabled\n",
}

// loadTree writes files into a temporary directory and loads path there.
func loadTree(t *testing.T, files map[string]string, path string, opts Options) (*Result, error) {
	t.Helper()
	root := t.TempDir()
	testfs.Write(t, root, files)
	t.Chdir(root)
	return Load([]string{path}, opts)
}

func proxiesByName(t *testing.T, res *Result) map[string]*contourv1.HTTPProxy {
	t.Helper()
	out := map[string]*contourv1.HTTPProxy{}
	for _, o := range res.Objects {
		if p, ok := o.Obj.(*contourv1.HTTPProxy); ok {
			out[p.Name] = p
		}
	}
	return out
}

// TestSubstituteBuiltObjects checks that the objects of a build are
// substituted after the build, one by one, as Flux does it.
func TestSubstituteBuiltObjects(t *testing.T) {
	s := mustSubstitution(t, map[string]string{"CLUSTER_DOMAIN": "example.com", "NAMESPACE": "shop", "PORT": "8080"})
	res, err := loadTree(t, fluxTree, "prod", Options{Substitute: s})
	if err != nil {
		t.Fatal(err)
	}
	proxies := proxiesByName(t, res)
	web, other := proxies["web"], proxies["other"]
	if web == nil || other == nil {
		t.Fatalf("got %v, want HTTPProxies web and other", proxies)
	}
	// The base's variable, after the overlay's patch merged.
	if got := web.Spec.VirtualHost.Fqdn; got != "web.example.com" {
		t.Errorf("fqdn %q, want web.example.com", got)
	}
	// The patch's variables: its default, and "${PORT}", quoted, read as
	// the number it became (Flux writes the object's YAML without the
	// quotes before it substitutes).
	route := web.Spec.Routes[0]
	if route.TimeoutPolicy == nil || route.TimeoutPolicy.Response != "30s" {
		t.Errorf("timeoutPolicy %+v, want response 30s", route.TimeoutPolicy)
	}
	if got := route.Services[0].Port; got != 8080 {
		t.Errorf("port %d, want 8080", got)
	}
	// The kustomization's own namespace: ${NAMESPACE}.
	if web.Namespace != "shop" || other.Namespace != "shop" {
		t.Errorf("namespaces %q, %q, want shop", web.Namespace, other.Namespace)
	}
	if got := web.Annotations["example.com/literal"]; got != "${NOT_A_VARIABLE}" {
		t.Errorf("$${NOT_A_VARIABLE} became %q, want ${NOT_A_VARIABLE}", got)
	}
	if got := other.Annotations["example.com/domain"]; got != "example.com" {
		t.Errorf("other's annotation %q, want example.com", got)
	}
	// Objects still name the files they came from.
	var sources []string
	for _, o := range res.Objects {
		sources = append(sources, o.Obj.GetName()+" "+o.Source.String())
	}
	if want := []string{"other base/other.yaml:1 (via prod)", "web base/proxy.yaml:1 (via prod)"}; !slices.Equal(sources, want) {
		t.Errorf("sources %q, want %q", sources, want)
	}
}

// TestSubstituteBuiltDisabled checks that the disabled annotation counts on
// the built object: an overlay's patch sets it on one object of a base,
// whose other object is substituted still.
func TestSubstituteBuiltDisabled(t *testing.T) {
	s := mustSubstitution(t, map[string]string{"CLUSTER_DOMAIN": "example.com"})
	res, err := loadTree(t, fluxTree, "disabled", Options{Substitute: s})
	if err != nil {
		t.Fatal(err)
	}
	proxies := proxiesByName(t, res)
	if got := proxies["other"].Annotations["example.com/domain"]; got != "${CLUSTER_DOMAIN}" {
		t.Errorf("disabled object's annotation %q, want ${CLUSTER_DOMAIN} as written", got)
	}
	if got := proxies["web"].Spec.VirtualHost.Fqdn; got != "web.example.com" {
		t.Errorf("web's fqdn %q, want web.example.com", got)
	}
	// A label turns it off too.
	tree := withFile(fluxTree, "disabled/disable.yaml", "apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata:\n  name: other\n  labels:\n    kustomize.toolkit.fluxcd.io/substitute: disabled\n")
	if res, err = loadTree(t, tree, "disabled", Options{Substitute: s}); err != nil {
		t.Fatal(err)
	}
	if got := proxiesByName(t, res)["other"].Annotations["example.com/domain"]; got != "${CLUSTER_DOMAIN}" {
		t.Errorf("labelled object's annotation %q, want ${CLUSTER_DOMAIN}", got)
	}
}

// withFile is files with one file's text replaced.
func withFile(files map[string]string, name, text string) map[string]string {
	out := make(map[string]string, len(files)+1)
	for k, v := range files {
		out[k] = v
	}
	out[name] = text
	return out
}

// TestSubstituteBuiltErrors checks the errors of substituted built
// objects: on the source file's line of the variable, with the hint.
func TestSubstituteBuiltErrors(t *testing.T) {
	repro := map[string]string{
		"kustomization.yaml": "resources: [proxy.yaml]\nnamespace: web\n",
		"proxy.yaml":         "apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata:\n  name: web\nspec:\n  virtualhost:\n    fqdn: web.${CLUSTER_DOMAIN}\n",
	}
	for _, c := range []struct {
		name   string
		files  map[string]string
		path   string
		vars   map[string]string
		strict bool
		want   []string // the errors, one each
	}{
		{name: "no variables given: the hint", files: repro, path: ".",
			want: []string{`proxy.yaml:7 (via .): HTTPProxy web/web: spec.virtualhost.fqdn: Invalid value: "web.${CLUSTER_DOMAIN}": spec.virtualhost.fqdn in body should match '^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'; hint: ${CLUSTER_DOMAIN} is a Flux variable; pass --substitute CLUSTER_DOMAIN=...`}},
		{name: "the variable not given: empty, the hint", files: repro, path: ".", vars: map[string]string{"OTHER": "x"},
			want: []string{`proxy.yaml:7 (via .): HTTPProxy web/web: spec.virtualhost.fqdn: Invalid value: "web.": spec.virtualhost.fqdn in body should match '^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'; hint: ${CLUSTER_DOMAIN} is a Flux variable with no value given (Flux substitutes an empty string); pass --substitute CLUSTER_DOMAIN=...`}},
		{name: "strict", files: repro, path: ".", vars: map[string]string{"OTHER": "x"}, strict: true,
			want: []string{`proxy.yaml:7 (via .): HTTPProxy web/web: envsubst error: variable substitution failed: variable not set (strict mode): "CLUSTER_DOMAIN"`}},
		{name: "strict, a variable of a base", files: fluxTree, path: "prod", vars: map[string]string{"NAMESPACE": "shop", "PORT": "80"}, strict: true,
			want: []string{
				// The object as built: its namespace not substituted.
				`base/proxy.yaml:9 (via prod): HTTPProxy ${NAMESPACE}/web: envsubst error: variable substitution failed: variable not set (strict mode): "CLUSTER_DOMAIN"`,
				`base/other.yaml:6 (via prod): HTTPProxy ${NAMESPACE}/other: envsubst error: variable substitution failed: variable not set (strict mode): "CLUSTER_DOMAIN"`,
			}},
		{name: "a value that breaks the YAML", files: repro, path: ".", vars: map[string]string{"CLUSTER_DOMAIN": "a: b"},
			want: []string{`proxy.yaml:7 (via .): HTTPProxy web/web: envsubst error: YAMLToJSON: yaml: mapping values are not allowed in this context (the value substituted for ${CLUSTER_DOMAIN})`}},
		// A variable of the patch: on the object's document, the hint
		// from the message.
		{name: "a variable of a patch", files: fluxTree, path: "prod", vars: map[string]string{"CLUSTER_DOMAIN": "example.com", "NAMESPACE": "shop", "PORT": "none"},
			want: []string{
				`base/proxy.yaml:1 (via prod): HTTPProxy shop/web: spec.routes[0].services[0].port: Invalid value: "string": spec.routes[0].services[0].port in body must be of type integer: "string"`,
				`base/proxy.yaml:1 (via prod): HTTPProxy shop/web: <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation`,
			}},
		// The build's output holds objects only: one that substitution
		// leaves without apiVersion and kind is an error, not skipped.
		{name: "no apiVersion and kind after substitution", path: ".", vars: map[string]string{"OTHER": "x"},
			files: map[string]string{"kustomization.yaml": "resources: [x.yaml]\n", "x.yaml": "apiVersion: ${API}\nkind: ${KIND}\nmetadata:\n  name: x\n"},
			want:  []string{`x.yaml:1 (via .): not a Kubernetes object: no apiVersion and kind; hint: ${API} is a Flux variable with no value given (Flux substitutes an empty string); pass --substitute API=...`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var s *Substitution
			if c.vars != nil {
				var err error
				if s, err = NewSubstitution(c.vars, c.strict); err != nil {
					t.Fatal(err)
				}
			}
			_, err := loadTree(t, c.files, c.path, Options{Substitute: s})
			if err == nil {
				t.Fatal("loaded, want errors")
			}
			if got := strings.Split(err.Error(), "\n"); !slices.Equal(got, c.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// TestBuiltObjectNotSubstituted checks what leaves a built object as
// kustomize built it: no variables given, no $ in it, the disabled
// annotation.
func TestBuiltObjectNotSubstituted(t *testing.T) {
	active := mustSubstitution(t, map[string]string{"X": "1"})
	node := func(text string) []byte {
		docs, err := manifest.ParseJSON("x", []byte(text), Options{}.limits())
		if err != nil {
			t.Fatal(err)
		}
		js, err := active.BuiltObject(docs[0].Root)
		if err != nil {
			t.Fatal(err)
		}
		return js
	}
	if js := node(`{"kind": "A", "metadata": {"name": "a"}, "spec": {"port": 80}}`); js != nil {
		t.Errorf("an object without $: %s, want it left as it is", js)
	}
	if js := node(`{"kind": "A", "metadata": {"name": "a", "annotations": {"kustomize.toolkit.fluxcd.io/substitute": "disabled"}}, "spec": {"v": "${X}"}}`); js != nil {
		t.Errorf("a disabled object: %s, want it left as it is", js)
	}
	if js := node(`{"kind": "A", "metadata": {"name": "a"}, "spec": {"v": "${X}", "w": "$$HOME", "n": 1000000}}`); string(js) != `{"kind":"A","metadata":{"name":"a"},"spec":{"n":1000000,"v":1,"w":"$HOME"}}` {
		t.Errorf("substituted: %s", js)
	}
	var none *Substitution
	docs, _ := manifest.ParseJSON("x", []byte(`{"v": "${X}"}`), Options{}.limits())
	if js, err := none.BuiltObject(docs[0].Root); js != nil || err != nil {
		t.Errorf("no variables: %s, %v, want nothing done", js, err)
	}
}

// TestBuiltObjectsNamespace checks -n on a build's output: as `kubectl
// apply -k DIR -n NS`, objects the build left without a namespace get it,
// and one the build gave another namespace is refused.
func TestBuiltObjectsNamespace(t *testing.T) {
	files := map[string]string{
		"plain/kustomization.yaml": "resources:\n- proxy.yaml\n",
		"plain/proxy.yaml":         kzProxy,
		"prod/kustomization.yaml":  "resources:\n- ../plain\nnamespace: prod\n",
	}
	res, err := loadTree(t, files, "plain", Options{Namespace: "web"})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Objects[0].Obj.GetNamespace(); got != "web" {
		t.Errorf("namespace %q, want web", got)
	}
	_, err = loadTree(t, files, "prod", Options{Namespace: "web"})
	want := `plain/proxy.yaml:1 (via prod): HTTPProxy prod/web: the namespace from the provided object "prod" does not match the namespace "web". You must pass '--namespace=prod' to perform this operation.`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	// A namespace that substitution empties is one the object lacks.
	files["prod/kustomization.yaml"] = "resources:\n- ../plain\nnamespace: ${NS}\n"
	res, err = loadTree(t, files, "prod", Options{Namespace: "web", Substitute: mustSubstitution(t, map[string]string{"OTHER": "x"})})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Objects[0].Obj.GetNamespace(); got != "web" {
		t.Errorf("namespace %q, want web", got)
	}
}

// TestBuiltTemplateIsAnError checks that a Go template action in a built
// object is not skipped as a Helm template file would be: kustomize used
// the file, and the object is refused, at its line.
func TestBuiltTemplateIsAnError(t *testing.T) {
	files := map[string]string{
		"kustomization.yaml": "resources:\n- proxy.yaml\n",
		"proxy.yaml":         strings.Replace(kzProxy, "web.example.com", `"{{ .Values.host }}"`, 1),
	}
	_, err := loadTree(t, files, ".", Options{})
	want := fmt.Sprintf("proxy.yaml:7 (via .): HTTPProxy default/web: spec.virtualhost.fqdn: Invalid value: %q", "{{ .Values.host }}")
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want an error starting %s", err, want)
	}
}
