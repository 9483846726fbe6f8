package loader

import (
	"fmt"
	"sort"
)

// objectKey identifies an object as the API server does: two objects with
// the same key cannot both exist.
type objectKey struct {
	kind, namespace, name string
}

func keyOf(o Object) objectKey {
	return objectKey{o.Kind, o.Obj.GetNamespace(), o.Obj.GetName()}
}

// findDuplicates reports every object that has the same kind, namespace and
// name as an earlier one. In a cluster the second `kubectl apply` would
// silently replace the first; offline, which one wins would depend on file
// order, so it is an error.
func findDuplicates(objs []Object) []error {
	first := make(map[objectKey]Source, len(objs))
	var errs []error
	for _, o := range objs {
		k := keyOf(o)
		if prev, ok := first[k]; ok {
			errs = append(errs, &Error{
				Source: o.Source, Kind: k.kind, Namespace: k.namespace, Name: k.name,
				Msg: fmt.Sprintf("defined more than once: also at %s", prev),
			})
			continue
		}
		first[k] = o.Source
	}
	return errs
}

// sortObjects orders objects by kind, namespace and name: the order then
// depends only on what the inputs say, not on file names or the order of
// documents. Keys are unique (see findDuplicates), so the order is total.
func sortObjects(objs []Object) {
	sort.Slice(objs, func(i, j int) bool {
		a, b := keyOf(objs[i]), keyOf(objs[j])
		if a.kind != b.kind {
			return a.kind < b.kind
		}
		if a.namespace != b.namespace {
			return a.namespace < b.namespace
		}
		return a.name < b.name
	})
}
