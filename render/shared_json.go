package render

import (
	"slices"
	"unsafe"
)

// sharedJSON holds, for one goroutine printing, the JSON of messages that
// several fields point to: the translation shares a message between the
// resources that embed the same one (a message is never modified once
// built), such as the metadata naming an HTTPProxy on each of its routes
// and the redirect of every HTTP-to-HTTPS route. Printing each again was
// 60-80 ms of CPU at 5,000 HTTPProxies.
//
// It is a small table indexed by the message's address. A message's JSON
// is kept the second time it is printed in a row at its slot, at the same
// depth, so that the many messages printed once are never copied. An
// entry keeps its message alive, so its address is not reused for another
// while the entry holds it.
type sharedJSON struct {
	slots [64]sharedSlot
}

type sharedSlot struct {
	message unsafe.Pointer
	depth   int
	json    []byte // nil until printed twice
}

// sharedMessage prints the message at, field i of a message whose plan is
// p, from e's table when it was printed before.
func (e *jsonEncoder) sharedMessage(dst []byte, p *presencePlan, i int, at unsafe.Pointer, depth int) ([]byte, error) {
	slot := &e.shared.slots[uintptr(at)>>4%uintptr(len(e.shared.slots))]
	if slot.message == at && slot.depth == depth && slot.json != nil {
		return append(dst, slot.json...), nil
	}
	sub := messageAt(p.fields[i].message, at)
	start := len(dst)
	dst, err := e.planned(dst, p.sub(i, sub), sub, depth)
	switch {
	case err != nil || len(dst) < start: // failed, or passed on in pieces
		*slot = sharedSlot{}
	case slot.message == at && slot.depth == depth:
		slot.json = slices.Clone(dst[start:])
	default:
		*slot = sharedSlot{message: at, depth: depth}
	}
	return dst, err
}
