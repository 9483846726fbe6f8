package index

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/contourc/contourc/loader"
)

// TestPatchedIndexIsBuilt patches one Memo's object index through
// every golden input and the Gateway API example changed every way one
// object can change (gone, changed, and back), and merged with the next
// input, under options that hide Secrets and Ingresses or not: each time
// the index must be what build makes of the same objects.
func TestPatchedIndexIsBuilt(t *testing.T) {
	inputs, _ := filepath.Glob("../../../testdata/golden/*/input")
	inputs = append(inputs, "../../../testdata/routetest/gateway/routes.yaml")
	var all [][]loader.Object
	for _, in := range inputs {
		loaded, err := loader.Load([]string{in}, loader.Options{})
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		all = append(all, loaded.Objects)
	}
	optionSets := []Options{{}, {SecretNamespaces: []string{"default"}, IngressClassNames: []string{"contour"}}}
	for _, opts := range optionSets {
		memo := &Memo{}
		check := func(what string, objs []loader.Object) {
			t.Helper()
			if got, want := memo.objectIndex(objs, opts), build(objs, opts); !sameIndex(t, got, want) {
				t.Fatalf("%s: the patched index differs from build's", what)
			}
		}
		for n, objs := range all {
			name := inputs[n]
			check(name, objs)
			for i, o := range objs {
				check(name+" without "+o.Kind+" "+o.Obj.GetName(), slices.Delete(slices.Clone(objs), i, i+1))
				check(name, objs)
				changed := slices.Clone(objs)
				changed[i].Obj = o.Obj.(runtime.Object).DeepCopyObject().(metav1.Object)
				check(name+" with "+o.Kind+" "+o.Obj.GetName()+" changed", changed)
				moved := slices.Clone(objs)
				moved[i].Source.Line++
				check(name+" with "+o.Kind+" "+o.Obj.GetName()+" moved", moved)
			}
			if n+1 < len(all) {
				check(name+" and the next input", mergedInLoaderOrder(objs, all[n+1]))
			}
		}
		if memo.patchedIndexes.Load() == 0 {
			t.Fatal("the index was never patched")
		}
	}
}

// TestObjectIndexOutOfOrder checks that objects out of the loader's order
// are indexed anew, and that the Memo then keeps nothing to patch.
func TestObjectIndexOutOfOrder(t *testing.T) {
	loaded, err := loader.Load([]string{"../../../testdata/golden/basic-routing/input"}, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	objs := loaded.Objects
	memo := &Memo{}
	memo.objectIndex(objs, Options{})
	reversed := slices.Clone(objs)
	slices.Reverse(reversed)
	if !sameIndex(t, memo.objectIndex(reversed, Options{}), build(reversed, Options{})) {
		t.Fatal("the index of reversed objects differs from build's")
	}
	if memo.patchedIndexes.Load() != 0 || memo.objects != nil {
		t.Fatalf("objects out of order were patched (%d) or kept (%v)", memo.patchedIndexes.Load(), memo.objects != nil)
	}
}

// mergedInLoaderOrder is the objects of a and of b, in the loader's
// order, each key once (a's).
func mergedInLoaderOrder(a, b []loader.Object) []loader.Object {
	out := slices.Concat(a, b)
	slices.SortStableFunc(out, loader.Compare)
	return slices.CompactFunc(out, func(x, y loader.Object) bool { return loader.Compare(x, y) == 0 })
}

// sameIndex compares what two indexes hold, leaving out what a
// translation sets afterwards.
func sameIndex(t *testing.T, a, b *Index) bool {
	t.Helper()
	view := func(c *Index) []any {
		return []any{c.services, c.Secrets, c.slices, c.delegations, c.Ingresses, c.HTTPProxies, c.Extensions,
			c.sources, c.opts, c.HTTPProxyByName, c.HTTPProxyExt, c.Gateways, c.GatewayClasses,
			c.HTTPRoutes, c.GRPCRoutes, c.TLSRoutes, c.TCPRoutes, c.ReferenceGrants, c.BackendTLSPolicies,
			c.Namespaces, c.configMaps}
	}
	// secretChecks, verdicts, memoized and routedWithoutEndpoints are
	// not the index.
	if n := reflect.TypeFor[Index]().NumField(); n != len(view(a))+4 {
		t.Fatalf("Index has %d fields: add the new ones to sameIndex", n)
	}
	x, y := view(a), view(b)
	for i := range x {
		if !reflect.DeepEqual(x[i], y[i]) {
			t.Logf("field %d differs:\n%v\n%v", i, x[i], y[i])
			return false
		}
	}
	return true
}

// TestPatchSorted: objects removed by identity and added in qualified
// name order, one by one or, past patchedInserts, sorted in; nil when none
// is left, as build lists none.
func TestPatchSorted(t *testing.T) {
	proxy := func(ns, name string) *contourv1.HTTPProxy {
		return &contourv1.HTTPProxy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	}
	names := func(list []*contourv1.HTTPProxy) []string {
		var out []string
		for _, p := range list {
			out = append(out, p.Namespace+"/"+p.Name)
		}
		return out
	}
	b, d, f := proxy("ns", "b"), proxy("ns", "d"), proxy("ns", "f")
	list := []*contourv1.HTTPProxy{b, d, f}
	// "ns-a/a" comes first: by qualified name '-' sorts before '/'.
	added := []*contourv1.HTTPProxy{proxy("ns-a", "a"), proxy("ns", "a"), proxy("ns", "e")}
	got := patchSorted(list, []*contourv1.HTTPProxy{d}, added)
	if want := []string{"ns-a/a", "ns/a", "ns/b", "ns/e", "ns/f"}; !slices.Equal(names(got), want) {
		t.Errorf("got %v, want %v", names(got), want)
	}
	if names(list)[1] != "ns/d" {
		t.Error("the list patched was changed")
	}
	var many []*contourv1.HTTPProxy
	for i := range patchedInserts + 5 {
		many = append(many, proxy("ns", fmt.Sprintf("c-%02d", patchedInserts+5-i)))
	}
	got = patchSorted(list, nil, many)
	if !slices.IsSortedFunc(names(got), strings.Compare) || len(got) != len(list)+len(many) {
		t.Errorf("with many added: %v", names(got))
	}
	if got := patchSorted(list, list, nil); got != nil {
		t.Errorf("all removed: %v, want nil", got)
	}
}
