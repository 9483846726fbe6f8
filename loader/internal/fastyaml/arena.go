package fastyaml

import (
	"sync"

	"go.yaml.in/yaml/v3"
)

// A chunk's parse tree lives only until the chunk's objects are decoded:
// nothing decoded points into it (the objects hold strings, never nodes,
// and errors hold lines). Yet at 5,000 HTTPProxies the trees were half of
// all a `check` allocated (195 of 384 MB), and the collector paced itself
// by them. So each chunk is parsed into the memory of a tree already
// decoded: an Arena hands out the parser's node slabs and Content
// pointer arrays, and reset makes them available again.
//
// Reused nodes are not cleared on reset: newNode overwrites a node whole
// when it hands it out, and Content arrays are filled by append before any
// slice of them is read. What a released arena still points at (the last
// chunk's text) is bounded by one chunk, and sync.Pool drops idle arenas
// at garbage collections.
type Arena struct {
	slabs    [][]yaml.Node
	nextSlab int
	arrays   [][]*yaml.Node
	nextPtrs int
	// parents is the parser's stack of the children of the collections
	// being parsed, kept for the next chunk: made for each chunk, it was
	// 10 of the 105 MB loading 5,000 HTTPProxies allocated.
	parents []*yaml.Node
}

var arenas = sync.Pool{New: func() any { return new(Arena) }}

// GetArena returns an arena whose memory is free to reuse.
func GetArena() *Arena { return arenas.Get().(*Arena) }

// release returns a's memory for the next chunk; every node it handed out
// must be dead by then.
func (a *Arena) Release() {
	a.Reset()
	arenas.Put(a)
}

// reset makes all of a's memory available again.
func (a *Arena) Reset() { a.nextSlab, a.nextPtrs = 0, 0 }

// nodes returns an empty slab for n nodes. A nil arena always allocates
// (tests and one-off parses).
func (a *Arena) nodes(n int) []yaml.Node {
	if a == nil {
		return make([]yaml.Node, 0, n)
	}
	return take(&a.slabs, &a.nextSlab, n, n)
}

// stack returns an empty parser stack. A nil arena always allocates.
func (a *Arena) stack() []*yaml.Node {
	if a == nil || a.parents == nil {
		return make([]*yaml.Node, 0, 64)
	}
	return a.parents[:0]
}

// keepStack keeps the parser's stack, emptied, for the next chunk; what it
// points to is dead with the chunk's tree, which reset releases anyway.
func (a *Arena) keepStack(s []*yaml.Node) {
	if a != nil {
		a.parents = s[:0]
	}
}

// pointers is nodes for the arrays Content slices are carved from: one
// with room for at least min pointers, of capacity n when it is new.
func (a *Arena) pointers(min, n int) []*yaml.Node {
	if a == nil {
		return make([]*yaml.Node, 0, n)
	}
	return take(&a.arrays, &a.nextPtrs, min, n)
}

// take hands out (*list)[*next], emptied, when it has room for min items.
// One too small is replaced by a new one of capacity n, so each position
// grows to the most a chunk asked of it, and the arena holds no more than
// one chunk needed.
func take[T any](list *[][]T, next *int, min, n int) []T {
	i := *next
	*next++
	if i < len(*list) && cap((*list)[i]) >= min {
		return (*list)[i][:0]
	}
	s := make([]T, 0, n)
	if i < len(*list) {
		(*list)[i] = s
	} else {
		*list = append(*list, s)
	}
	return s
}
