package protojson

// The fast JSON encoder's Anys: each distinct packed config printed once,
// its JSON remembered by type URL and bytes (anyCache).

import (
	"hash/maphash"
	"slices"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/contourc/contourc/render/internal/protowalk"
)

// anyMessage prints an Any as protojson does, "@type" first and then the
// fields of the packed message, from the cache when it was printed before
// at the same depth.
func (e *Encoder) anyMessage(dst []byte, m protoreflect.Message, depth int) ([]byte, error) {
	if a, ok := m.Interface().(*anypb.Any); ok {
		return e.anyValue(dst, a.GetTypeUrl(), a.GetValue(), a, depth)
	}
	fds := m.Descriptor().Fields()
	return e.anyValue(dst, m.Get(fds.ByNumber(1)).String(), m.Get(fds.ByNumber(2)).Bytes(), nil, depth)
}

// anyValue is anyMessage for the Any a (nil when it is not an *anypb.Any)
// holding value of typeURL.
func (e *Encoder) anyValue(dst []byte, typeURL string, value []byte, a *anypb.Any, depth int) ([]byte, error) {
	if typeURL == "" {
		return dst, errFallback // protojson's empty-Any and error cases
	}
	cacheable := len(value) <= protowalk.MaxCachedAny
	var keyBuf [protowalk.MaxCachedAny + 256]byte // the key is built here, not on the heap
	var key []byte
	if cacheable {
		key = protowalk.AnyKey(keyBuf[:0], typeURL, value)
		if e.indent {
			key = append(key, byte(depth))
		}
		if js, ok := e.anys.get(key); ok {
			return append(dst, js...), nil
		}
	}
	start := len(dst)
	var known proto.Message
	if a != nil {
		if known = e.Decoded.Get(a); known == nil {
			known = e.Unpacked.Get(a)
			if e.Drop && known != nil {
				e.Unpacked.Forget(a) // printed once
			}
		}
	}
	dst, err := e.packed(dst, typeURL, value, depth, known)
	if err != nil {
		return dst, err
	}
	if cacheable {
		e.anys.put(key, dst[start:])
	}
	return dst, nil
}

// anyCache maps packed messages (protowalk.AnyKey) to their printed JSON. Lookups,
// by far the most frequent, take a byte slice and allocate nothing.
//
// A packed message's JSON is kept from the second time it is printed on:
// the repeated configs are printed once more, but the unique ones (each
// filter chain's connection manager and TLS context) are not held, which
// at 5,000 HTTPProxies was 50 MB of memory, a quarter of what printing
// the output holds.
type anyCache struct {
	mu   sync.RWMutex
	m    map[string][]byte
	seen map[uint64]bool // by maphash of the key; a collision only keeps a JSON early
}

var anyCacheSeed = maphash.MakeSeed()

func (c *anyCache) get(key []byte) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	js, ok := c.m[string(key)]
	return js, ok
}

// put records that key printed as js, which put copies when it keeps it.
func (c *anyCache) put(key, js []byte) {
	if c == nil {
		return
	}
	h := maphash.Bytes(anyCacheSeed, key)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.seen[h] {
		if c.seen == nil {
			c.seen = map[uint64]bool{}
		}
		c.seen[h] = true
		return
	}
	if c.m == nil {
		c.m = map[string][]byte{}
	}
	c.m[string(key)] = slices.Clone(js)
}

// packed prints the message value encodes, or known, the same message
// decoded before, when there is one.
func (e *Encoder) packed(dst []byte, typeURL string, value []byte, depth int, known proto.Message) ([]byte, error) {
	var inner protoreflect.Message
	if known != nil {
		inner = known.ProtoReflect()
	} else {
		mt, err := protoregistry.GlobalTypes.FindMessageByURL(typeURL)
		if err != nil {
			return dst, errFallback
		}
		inner = mt.New()
		if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(value, inner.Interface()); err != nil {
			return dst, errFallback
		}
	}
	if inner.Descriptor().ParentFile().Package() == "google.protobuf" {
		return dst, errFallback // well-known types nest under "value"
	}
	if e.Validate {
		if err := protowalk.ValidateOne(inner.Interface()); err != nil {
			return dst, &InvalidError{err}
		}
	}
	dst = e.key(e.member(append(dst, '{'), depth, true), "@type")
	dst, err := appendJSONString(dst, typeURL)
	if err != nil {
		return dst, err
	}
	dst, _, err = e.fields(dst, inner, depth, 1)
	return e.end(dst, depth, '}', false), err
}
