package render

import (
	"slices"
	"unsafe"
)

// sharedJSON holds, for one goroutine printing, the JSON of messages,
// short lists of messages and maps that several fields point to: the
// translation shares a message between the resources that embed the same
// one (a message is never modified once built), such as the metadata
// naming an HTTPProxy on each of its routes, the redirect and per-filter
// map of every HTTP-to-HTTPS route, and the fields of the per-SNI
// connection managers but their route table. Printing each again was
// about a tenth of `render -o json`'s printing at 5,000 HTTPProxies.
//
// It is a small table indexed by the address of the message (or the
// list's array, or the map). A JSON is kept the second time the same one
// is printed in a row at its slot, at the same depth, so that the many
// printed once are never copied. An entry keeps what it holds alive, so
// its address is not reused for another while the entry holds it.
type sharedJSON struct {
	slots []sharedSlot
}

// sharedSlots is how many slots a worker's table has: with 64, the
// messages of one route evicted the metadata its neighbours share.
const sharedSlots = 256

func newSharedJSON(slots int) *sharedJSON { return &sharedJSON{slots: make([]sharedSlot, slots)} }

type sharedSlot struct {
	message unsafe.Pointer // or the array of a list, or a map
	n       int            // the list's length; -1 for a map
	depth   int
	json    []byte // nil until printed twice
}

// holds says whether the slot is that of the message, list (of n
// elements) or map at, at depth.
func (s *sharedSlot) holds(at unsafe.Pointer, n, depth int) bool {
	return s.message == at && s.n == n && s.depth == depth
}

// sharedMessage prints the message at, field i of a message whose plan is
// p, from e's table when it was printed before.
func (e *jsonEncoder) sharedMessage(dst []byte, p *presencePlan, i int, at unsafe.Pointer, depth int) ([]byte, error) {
	return e.shared.print(dst, at, 0, depth, func(dst []byte) ([]byte, error) {
		sub := messageAt(p.fields[i].message, at)
		return e.planned(dst, p.sub(i, sub), sub, depth)
	})
}

// sharedList is messageList, from e's table when the same list (the same
// array, as long) was printed before. Lists long enough to be printed in
// pieces are printed anew.
func (e *jsonEncoder) sharedList(dst []byte, p *presencePlan, i int, items []unsafe.Pointer, depth int) ([]byte, error) {
	if e.shared == nil || len(items) == 0 || len(items) >= minSplitList {
		return e.messageList(dst, p, i, items, depth)
	}
	return e.shared.print(dst, unsafe.Pointer(&items[0]), len(items), depth, func(dst []byte) ([]byte, error) {
		return e.messageList(dst, p, i, items, depth)
	})
}

// sharedMap is directMap for the map field f at at, from e's table when
// the same map was printed before (every HTTP-to-HTTPS redirect shares
// one per-filter map).
func (e *jsonEncoder) sharedMap(dst []byte, f *fieldPresence, at unsafe.Pointer, depth int) ([]byte, error) {
	m := *(*unsafe.Pointer)(at) // a map value is a pointer to the map
	if e.shared == nil || m == nil {
		return e.directMap(dst, f, at, depth)
	}
	return e.shared.print(dst, m, -1, depth, func(dst []byte) ([]byte, error) {
		return e.directMap(dst, f, at, depth)
	})
}

// print appends the JSON of the message, list (of n elements) or map at,
// which print appends, from the table when it holds it.
func (t *sharedJSON) print(dst []byte, at unsafe.Pointer, n, depth int, print func([]byte) ([]byte, error)) ([]byte, error) {
	slot := &t.slots[uintptr(at)>>4%uintptr(len(t.slots))]
	if slot.holds(at, n, depth) && slot.json != nil {
		return append(dst, slot.json...), nil
	}
	start := len(dst)
	dst, err := print(dst)
	// What it holds is read again: printing what at holds may have used
	// the same slot for a message inside.
	switch {
	case err != nil || len(dst) < start: // failed, or passed on in pieces
		*slot = sharedSlot{}
	case slot.holds(at, n, depth):
		slot.json = slices.Clone(dst[start:])
	default:
		*slot = sharedSlot{message: at, n: n, depth: depth}
	}
	return dst, err
}
