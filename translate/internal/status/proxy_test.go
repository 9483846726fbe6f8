package status

import (
	"slices"
	"strings"
	"testing"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/dag/index"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Statuses come out ordered by kind, namespace and name, whether their
// keys are taken in the cache's order or, for a status of an object the
// cache does not list, sorted.
func TestStatusesOrderedKeys(t *testing.T) {
	var objs []loader.Object
	for _, ns := range []string{"b", "a", "a-b", "a.b"} {
		for _, name := range []string{"y", "x", "x-y"} {
			p := &contourv1.HTTPProxy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
			objs = append(objs, loader.Object{Kind: "HTTPProxy", Obj: p, Source: loader.Source{File: "proxies.yaml", Line: len(objs) + 1}})
		}
	}
	c := index.New(objs, index.Options{})
	ss := Map{}
	for _, p := range c.HTTPProxies {
		ss[Key{Kind: "HTTPProxy", Name: index.NamespacedName(p)}] = &Proxy{}
	}
	sorted := func() []Key {
		var keys []Key
		for k := range ss {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b Key) int {
			return strings.Compare(a.Kind+"\x00"+a.Name.Namespace+"/"+a.Name.Name, b.Kind+"\x00"+b.Name.Namespace+"/"+b.Name.Name)
		})
		return keys
	}
	if got := ss.orderedKeys(c); !slices.Equal(got, sorted()) {
		t.Errorf("in the cache's order: %v\nwant %v", got, sorted())
	}
	ss[Key{Kind: "ExtensionService", Name: types.NamespacedName{Namespace: "z", Name: "ext"}}] = &Proxy{}
	if got := ss.orderedKeys(c); !slices.Equal(got, sorted()) {
		t.Errorf("with a status the cache does not list: %v\nwant %v", got, sorted())
	}
}
