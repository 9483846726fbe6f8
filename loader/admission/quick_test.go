package admission

import (
	"testing"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
)

// TestShortcutsAgreeWithTheWalks checks prunesNothing and listsUnique
// against the API server's pruning and list-type walks they stand in for.
func TestShortcutsAgreeWithTheWalks(t *testing.T) {
	for _, text := range []string{
		`{apiVersion: projectcontour.io/v1, kind: HTTPProxy, metadata: {name: p, labels: {a: b}}, spec: {virtualhost: {fqdn: a.b}}}`,
		`{apiVersion: projectcontour.io/v1, kind: HTTPProxy, metadata: {name: p}, spec: {virtualhost: {fqdn: a.b, x: 1}}}`,
		`{apiVersion: projectcontour.io/v1, kind: HTTPProxy, metadata: {name: p}, spec: {routes: [{services: [{name: s, port: 1, y: 2}]}]}}`,
		`{apiVersion: projectcontour.io/v1, kind: HTTPProxy, metadata: {name: p}, spec: {}, extra: 1}`,
		`{apiVersion: gateway.networking.k8s.io/v1, kind: HTTPRoute, metadata: {name: r}, spec: {rules: [{matches: [{headers: [{name: a, value: b}]}]}]}}`,
		`{apiVersion: gateway.networking.k8s.io/v1, kind: HTTPRoute, metadata: {name: r}, spec: {rules: [{matches: [{headers: [{name: a, value: b}, {name: c, value: d}]}]}]}}`,
		`{apiVersion: gateway.networking.k8s.io/v1, kind: HTTPRoute, metadata: {name: r}, spec: {hostnames: [a.b, a.b]}}`,
		`{apiVersion: gateway.networking.k8s.io/v1, kind: Gateway, metadata: {name: g}, spec: {gatewayClassName: c, listeners: [{name: a, port: 1, protocol: HTTP, z: 1}]}}`,
		`{apiVersion: projectcontour.io/v1alpha1, kind: ContourConfiguration, metadata: {name: c}, spec: {envoy: {listener: {useRemoteAddress: true, w: 1}}}}`,
	} {
		obj := parseObject(t, text)
		v, err := lookup(gvkOf(obj))
		if err != nil {
			t.Fatal(err)
		}
		root, _ := v.compiled()
		quick := prunesNothing(obj, root, true)
		unique := listsUnique(obj, root)
		pruned := structuralpruning.PruneWithOptions(obj, v.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
		if quick != (len(pruned) == 0) {
			t.Errorf("%s: prunesNothing %v, pruning removed %q", text, quick, pruned)
		}
		if errs := structurallisttype.ValidateListSetsAndMaps(nil, v.structural, obj); unique && len(errs) > 0 {
			t.Errorf("%s: listsUnique, but the list-type walk finds %v", text, errs)
		}
	}
}
