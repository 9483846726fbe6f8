package lint

import (
	"github.com/contourc/contourc/loader"
)

// index finds the loaded objects by kind, namespace and name. Stand-ins
// (objects the standin package made) are kept apart: rules about what a
// repository wrote do not fire on them, but a reference to one resolves.
type index struct {
	byKey map[Object]*loader.Object
	all   []*loader.Object // the input's, in the loader's order
}

func newIndex(objs []loader.Object) *index {
	ix := &index{byKey: make(map[Object]*loader.Object, len(objs))}
	for i := range objs {
		o := &objs[i]
		ix.byKey[objectOf(o)] = o
		if o.StandIn == "" {
			ix.all = append(ix.all, o)
		}
	}
	return ix
}

func (ix *index) object(k Object) *loader.Object { return ix.byKey[k] }

func (ix *index) get(kind, ns, name string) *loader.Object {
	return ix.byKey[Object{Kind: kind, Namespace: ns, Name: name}]
}

// ofKind are the input's objects of kind, in the loader's order.
func (ix *index) ofKind(kind string) []*loader.Object {
	var out []*loader.Object
	for _, o := range ix.all {
		if o.Kind == kind {
			out = append(out, o)
		}
	}
	return out
}
