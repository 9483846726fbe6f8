package admission

// Pruning and the list-type walk are the API server's, and they copy a
// field's schema at every field they visit. Most objects have no unknown
// field and no list that could hold duplicates; these checks tell so by
// walking the value along the node tree, which copies nothing, and
// admission then leaves out the walk that would have changed and found
// nothing.

// prunesNothing says whether pruning x at n (nil: no schema) would remove
// nothing, following structural pruning's rules: apiVersion, kind and
// metadata stay at a resource's root, x-kubernetes-preserve-unknown-fields
// keeps unknown fields but not those of known ones.
func prunesNothing(x any, n *node, root bool) bool {
	if n != nil && n.st.XPreserveUnknownFields {
		return keepsUnknown(x, n, root)
	}
	switch x := x.(type) {
	case map[string]any:
		if n == nil {
			return len(x) == 0
		}
		n.children()
		for k, v := range x {
			if (root || n.st.XEmbeddedResource) && metaFields[k] {
				continue
			}
			c := n.fields[k]
			if c == nil {
				c = n.additional
			}
			if c == nil || !prunesNothing(v, c, false) {
				return false
			}
		}
	case []any:
		var items *node
		if n != nil {
			n.children()
			items = n.items
		}
		for _, v := range x {
			if !prunesNothing(v, items, false) {
				return false
			}
		}
	}
	return true
}

// keepsUnknown is prunesNothing below x-kubernetes-preserve-unknown-fields.
func keepsUnknown(x any, n *node, root bool) bool {
	if n == nil {
		return true
	}
	n.children()
	switch x := x.(type) {
	case map[string]any:
		for k, v := range x {
			if (root || n.st.XEmbeddedResource) && metaFields[k] {
				continue
			}
			c := n.fields[k]
			if c == nil {
				c = n.additional
			}
			if c != nil && !prunesNothing(v, c, false) {
				return false
			}
		}
	case []any:
		for _, v := range x {
			if !keepsUnknown(v, n.items, false) {
				return false
			}
		}
	}
	return true
}

var metaFields = map[string]bool{"apiVersion": true, "kind": true, "metadata": true}

// listsUnique says whether the list-type walk would find nothing in x at
// n: every x-kubernetes-list-type list has at most one item, and a map
// list's item is an object (or null).
func listsUnique(x any, n *node) bool {
	if !n.hasListTypes() {
		return true
	}
	n.children()
	switch x := x.(type) {
	case map[string]any:
		for k, v := range x {
			c := n.fields[k]
			if c == nil {
				c = n.additional
			}
			if c != nil && !listsUnique(v, c) {
				return false
			}
		}
	case []any:
		if t := n.st.XListType; t != nil && (*t == "set" || *t == "map") {
			if len(x) > 1 {
				return false
			}
			for _, v := range x {
				if _, ok := v.(map[string]any); *t == "map" && v != nil && !ok {
					return false
				}
			}
		}
		if n.items != nil {
			for _, v := range x {
				if !listsUnique(v, n.items) {
					return false
				}
			}
		}
	}
	return true
}

// hasListTypes says whether n or a place below it has an
// x-kubernetes-list-type.
func (n *node) hasListTypes() bool {
	n.listsOnce.Do(func() { n.lists = subtreeHas(n.st, hasListType) })
	return n.lists
}
