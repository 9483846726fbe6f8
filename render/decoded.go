package render

// Typed configs decoded once for all of a bootstrap's passes.

import (
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// decodedAnys remembers the message each Any of one bootstrap holds, as the
// inlining walk decoded (and possibly rewrote and packed again) it, so that
// the checks and the printer that follow need not decode it again: at 5,000
// virtual hosts each connection manager was decoded three times. It is
// keyed by the Any itself, so it is only right while nothing changes an Any
// it holds: from inlining, which fills it, to printing. A nil one holds
// nothing.
type decodedAnys struct {
	m sync.Map // *anypb.Any -> proto.Message
}

// get returns what a holds, or nil when it was not decoded.
func (d *decodedAnys) get(a *anypb.Any) proto.Message {
	if d == nil {
		return nil
	}
	if m, ok := d.m.Load(a); ok {
		return m.(proto.Message)
	}
	return nil
}

// put records that a holds inner, which a.Value encodes.
func (d *decodedAnys) put(a *anypb.Any, inner proto.Message) {
	if d != nil {
		d.m.Store(a, inner)
	}
}
