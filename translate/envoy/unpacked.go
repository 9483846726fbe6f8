package envoy

import (
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// Unpacked remembers the messages behind the biggest typed configs a
// translation packs: each filter chain's HTTP connection manager and TLS
// context. A renderer printing them takes the message from here instead of
// decoding the bytes the translation just encoded, which at 5,000
// HTTPProxies was a tenth of printing the JSON output and a tenth of what
// it allocated.
//
// Only a translation without a Memo (a one-shot render) keeps one: serve
// holds its resources for as long as they are served, and the messages
// would double what the filter chains hold.
//
// What Get returns is the message the Any's bytes encode, and must be
// treated as read-only. A nil Unpacked remembers nothing. It is safe for
// concurrent use.
type Unpacked struct {
	m sync.Map // *anypb.Any -> proto.Message
}

// Get returns the message a holds, or nil when u does not know a.
func (u *Unpacked) Get(a *anypb.Any) proto.Message {
	if u == nil {
		return nil
	}
	if m, ok := u.m.Load(a); ok {
		return m.(proto.Message)
	}
	return nil
}

// remember records that a, just packed from m, holds m; nothing may change
// m afterwards.
func (u *Unpacked) remember(a *anypb.Any, m proto.Message) {
	if u != nil && a != nil {
		u.m.Store(a, m)
	}
}

// Forget drops what u knows of a, for a renderer done with it.
func (u *Unpacked) Forget(a *anypb.Any) {
	if u != nil {
		u.m.Delete(a)
	}
}
