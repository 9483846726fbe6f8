package protojson

import (
	"slices"
	"unsafe"

	"github.com/contourc/contourc/render/internal/presence"
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
func (e *Encoder) sharedMessage(dst []byte, p *presence.Plan, i int, at unsafe.Pointer, depth int) ([]byte, error) {
	slot, ok := e.shared.lookup(at, 0, depth)
	if ok {
		return append(dst, slot.json...), nil
	}
	start := len(dst)
	sub := presence.MessageAt(p.Fields[i].Message, at)
	dst, err := e.planned(dst, p.Sub(i, sub), sub, depth)
	slot.remember(dst, start, err, at, 0, depth)
	return dst, err
}

// sharedList is messageList, from e's table when the same list (the same
// array, as long) was printed before. Lists long enough to be printed in
// pieces are printed anew.
func (e *Encoder) sharedList(dst []byte, p *presence.Plan, i int, items []unsafe.Pointer, depth int) ([]byte, error) {
	if e.shared == nil || len(items) == 0 || len(items) >= MinSplitList {
		return e.messageList(dst, p, i, items, depth)
	}
	at := unsafe.Pointer(&items[0])
	slot, ok := e.shared.lookup(at, len(items), depth)
	if ok {
		return append(dst, slot.json...), nil
	}
	start := len(dst)
	dst, err := e.messageList(dst, p, i, items, depth)
	slot.remember(dst, start, err, at, len(items), depth)
	return dst, err
}

// sharedMap is directMap for the map field f at at, from e's table when
// the same map was printed before (every HTTP-to-HTTPS redirect shares
// one per-filter map).
func (e *Encoder) sharedMap(dst []byte, f *presence.Field, at unsafe.Pointer, depth int) ([]byte, error) {
	m := *(*unsafe.Pointer)(at) // a map value is a pointer to the map
	if e.shared == nil || m == nil {
		return e.directMap(dst, f, at, depth)
	}
	slot, ok := e.shared.lookup(m, -1, depth)
	if ok {
		return append(dst, slot.json...), nil
	}
	start := len(dst)
	dst, err := e.directMap(dst, f, at, depth)
	slot.remember(dst, start, err, m, -1, depth)
	return dst, err
}

// lookup returns the slot of the message, list (of n elements) or map at,
// at depth, and whether it holds its JSON. (Printing is the caller's, not
// a function passed in: a closure for each shared message was a sixth of
// what printing 5,000 HTTPProxies allocated.)
func (t *sharedJSON) lookup(at unsafe.Pointer, n, depth int) (*sharedSlot, bool) {
	slot := &t.slots[uintptr(at)>>4%uintptr(len(t.slots))]
	return slot, slot.holds(at, n, depth) && slot.json != nil
}

// remember records in slot what was printed of the message, list or map
// at, dst[start:]. What the slot holds is read again: printing what at
// holds may have used the same slot for a message inside.
func (slot *sharedSlot) remember(dst []byte, start int, err error, at unsafe.Pointer, n, depth int) {
	switch {
	case err != nil || len(dst) < start: // failed, or passed on in pieces
		*slot = sharedSlot{}
	case slot.holds(at, n, depth):
		slot.json = slices.Clone(dst[start:])
	default:
		*slot = sharedSlot{message: at, n: n, depth: depth}
	}
}
