package loader

import (
	"strings"
	"testing"
)

// TestNamespaceFlag checks -n: namespaced objects without a namespace get
// it, cluster-scoped ones never do, and an object of another namespace is
// refused in kubectl's words.
func TestNamespaceFlag(t *testing.T) {
	for _, c := range []struct {
		name, text string
		ns         string // Options.Namespace
		want       string // namespace of the loaded object
		err        string // or the error
	}{
		{name: "none given", ns: "apps", want: "apps",
			text: "apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata:\n  name: web\nspec: {}\n"},
		{name: "no -n", ns: "", want: "default",
			text: "apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata:\n  name: web\nspec: {}\n"},
		{name: "the same", ns: "apps", want: "apps",
			text: "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: apps\nspec:\n  ports: [{port: 80}]\n"},
		{name: "empty", ns: "apps", want: "apps",
			text: "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: \"\"\nspec:\n  ports: [{port: 80}]\n"},
		{name: "no metadata", ns: "apps", err: "<stdin>:1: HTTPProxy: metadata.name: Required value: name or generateName is required",
			text: "apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nspec: {}\n"},
		{name: "cluster-scoped", ns: "apps", want: "",
			text: "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata:\n  name: contour\nspec:\n  controllerName: projectcontour.io/gateway-controller\n"},
		{name: "a Namespace", ns: "apps", want: "",
			text: "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: other\n"},
		{name: "another", ns: "apps",
			err:  `<stdin>:5: Service other/web: the namespace from the provided object "other" does not match the namespace "apps". You must pass '--namespace=other' to perform this operation.`,
			text: "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: other\n"},
		{name: "another, a kind contourc skips", ns: "apps", err: `Deployment other/web: the namespace from the provided object "other"`,
			text: "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: other\n"},
		{name: "another, cluster-scoped kind contourc skips", ns: "apps", want: "-",
			text: "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: web\n  namespace: other\n"},
		{name: "an unknown kind is namespaced", ns: "apps", err: `Widget other/w: the namespace from the provided object "other"`,
			text: "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: other\n"},
		{name: "List items", ns: "apps", want: "apps",
			text: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata:\n    name: web\n  spec:\n    ports: [{port: 80}]\n"},
		{name: "merge keys", ns: "apps", want: "apps",
			text: "apiVersion: v1\nkind: Service\nmetadata:\n  <<: {labels: {a: b}}\n  name: web\nspec:\n  ports: [{port: 80}]\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Load([]string{"-"}, Options{Stdin: strings.NewReader(c.text), Namespace: c.ns})
			switch {
			case c.err != "":
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one saying %q", err, c.err)
				}
			case err != nil:
				t.Fatal(err)
			case c.want == "-":
				if len(res.Objects) != 0 {
					t.Fatalf("loaded %d objects, want none", len(res.Objects))
				}
			case len(res.Objects) != 1:
				t.Fatalf("loaded %d objects, want 1", len(res.Objects))
			default:
				if got := res.Objects[0].Obj.GetNamespace(); got != c.want {
					t.Errorf("namespace %q, want %q", got, c.want)
				}
			}
		})
	}
}

// TestNamespacedKinds checks the scope table against kinds people write.
func TestNamespacedKinds(t *testing.T) {
	for _, c := range []struct {
		apiVersion, kind string
		want             bool
	}{
		{"networking.k8s.io/v1", "IngressClass", false},
		{"gateway.networking.k8s.io/v1beta1", "GatewayClass", false},
		{"cert-manager.io/v1", "ClusterIssuer", false},
		{"cert-manager.io/v1", "Issuer", true},
		{"v1", "Namespace", false},
		{"rbac.authorization.k8s.io/v1", "ClusterRoleBinding", false},
		{"projectcontour.io/v1", "HTTPProxy", true},
		{"gateway.networking.k8s.io/v1", "HTTPRoute", true},
		{"example.com/v1", "ClusterThing", true}, // unknown: namespaced, as kubectl takes it
	} {
		if got := namespacedKind(c.apiVersion, c.kind); got != c.want {
			t.Errorf("namespacedKind(%s, %s) = %v, want %v", c.apiVersion, c.kind, got, c.want)
		}
	}
}
