package httpproxy

import (
	"testing"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/dag/index"
)

// A root is taken from the memo only when it, and every HTTPProxy it
// looked up, are the same objects with the same extensions.
func TestRootRunReadsTheSame(t *testing.T) {
	root := &contourv1.HTTPProxy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "root", Generation: 1},
		Spec: contourv1.HTTPProxySpec{
			VirtualHost: &contourv1.VirtualHost{Fqdn: "example.com"},
			Includes:    []contourv1.Include{{Name: "child", Namespace: "default"}},
		},
	}
	child := &contourv1.HTTPProxy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "child", Generation: 1},
		Spec:       contourv1.HTTPProxySpec{Routes: []contourv1.Route{{Services: []contourv1.Service{{Name: "kuard", Port: 80}}}}},
	}
	objects := func() []loader.Object {
		return []loader.Object{{Kind: "HTTPProxy", Obj: root}, {Kind: "HTTPProxy", Obj: child}}
	}
	ext := &loader.Extensions{}
	c := index.New(objects(), index.Options{})
	rr := &rootRun{proxy: root, ext: c.HTTPProxyExt[index.NamespacedName(root)], lookups: []proxyLookup{
		{index.NamespacedName(child), child, c.HTTPProxyExt[index.NamespacedName(child)]},
		{types.NamespacedName{Namespace: "default", Name: "missing"}, nil, nil},
	}}
	if !rr.readsTheSame(c, root) {
		t.Fatal("the same objects read differently")
	}
	for name, change := range map[string]func(c *index.Index){
		"the root's extensions":   func(c *index.Index) { c.HTTPProxyExt[index.NamespacedName(root)] = ext },
		"an include changed":      func(c *index.Index) { c.HTTPProxyByName[index.NamespacedName(child)] = child.DeepCopy() },
		"an include's extensions": func(c *index.Index) { c.HTTPProxyExt[index.NamespacedName(child)] = ext },
		"a missing include found": func(c *index.Index) {
			c.HTTPProxyByName[types.NamespacedName{Namespace: "default", Name: "missing"}] = child
		},
	} {
		c := index.New(objects(), index.Options{})
		change(c)
		if rr.readsTheSame(c, root) {
			t.Errorf("%s: read as the same", name)
		}
	}
	if rr.readsTheSame(c, root.DeepCopy()) {
		t.Error("another root object read as the same")
	}
}

// equalBut leaves out what it is told to, wherever it stands.
func TestEqualBut(t *testing.T) {
	svc, proxy, other := loader.Object{Kind: "Service", Obj: &metav1.ObjectMeta{Name: "s"}},
		loader.Object{Kind: "HTTPProxy", Obj: &metav1.ObjectMeta{Name: "p"}},
		loader.Object{Kind: "HTTPProxy", Obj: &metav1.ObjectMeta{Name: "q"}}
	skipProxies := func(o loader.Object) bool { return o.Kind == "HTTPProxy" }
	never := func(loader.Object) bool { return false }
	for _, tt := range []struct {
		a, b []loader.Object
		skip func(loader.Object) bool
		want bool
	}{
		{[]loader.Object{svc}, []loader.Object{svc}, never, true},
		{[]loader.Object{svc, proxy}, []loader.Object{svc, other}, never, false},
		{[]loader.Object{svc, proxy}, []loader.Object{other, svc}, skipProxies, true},
		{[]loader.Object{proxy}, nil, skipProxies, true},
		{[]loader.Object{svc}, []loader.Object{svc, svc}, skipProxies, false},
		{nil, []loader.Object{svc}, never, false},
	} {
		if got := equalBut(tt.a, tt.b, tt.skip); got != tt.want {
			t.Errorf("equalBut(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
