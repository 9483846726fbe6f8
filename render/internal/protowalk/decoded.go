package protowalk

// Typed configs decoded once for all of a bootstrap's passes.

import (
	"sync"

	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/contourc/contourc/translate"
)

// Decoded remembers the message each Any of one bootstrap holds, as the
// inlining walk decoded (and possibly rewrote) it, so that the checks and
// the printer that follow need not decode it again: at 5,000 virtual hosts
// each connection manager was decoded three times. It is keyed by the Any
// itself, so it is only right while nothing changes an Any it holds: from
// inlining, which fills it, to printing. A nil one holds nothing.
type Decoded struct {
	m sync.Map // *anypb.Any -> decodedAny

	// LazyPacking lets a walk that rewrites an Any's content leave the Any's
	// bytes as they were rather than pack the content again: packing each
	// connection manager with its whole route table inline was a tenth of
	// printing a bootstrap, and the checks and the printer read the content
	// from here. Such an Any's bytes are then stale; since a rewrite depends
	// on the content alone, equal stale bytes still mean equal content, so
	// caches keyed by bytes stay right. packed makes the bytes whole for
	// anything that reads them.
	LazyPacking bool
	// Unpacked, when set, holds the connection managers the translation
	// packed, which a walk starts from rather than decoding their bytes
	// (see unpackedCopy).
	Unpacked  *translate.Unpacked
	mu        sync.Mutex
	rewritten map[string]proto.Message // by AnyKey of the bytes before the rewrite
}

type decodedAny struct {
	msg   proto.Message
	stale bool // a.Value does not encode msg yet
}

// Get returns what a holds, or nil when it was not decoded.
func (d *Decoded) Get(a *anypb.Any) proto.Message {
	if d == nil {
		return nil
	}
	if e, ok := d.m.Load(a); ok {
		return e.(decodedAny).msg
	}
	return nil
}

// unpackedCopy is the content of a, when a holds a connection manager the
// translation kept unpacked: a new message with the same fields, which the
// inlining walk may change, as it changes nothing but the manager's own
// route table field (see TestInliningRewritesNothingBelowTopCopies). Every
// filter chain has its own manager, and decoding each, kilobytes of
// filters, was 3% of render -o yaml's CPU at 5,000 HTTPProxies and, at
// 20,000, a tenth of its memory and of its time.
func (d *Decoded) unpackedCopy(a *anypb.Any) proto.Message {
	if d == nil {
		return nil
	}
	hcm, ok := d.Unpacked.Get(a).(*hcmv3.HttpConnectionManager)
	if !ok {
		return nil
	}
	return topCopy(hcm)
}

// topCopy is a new message of m's type holding m's own fields: it shares
// every message, list and map below them with m.
func topCopy[T proto.Message](m T) T {
	out := m.ProtoReflect().New()
	m.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		out.Set(fd, v)
		return true
	})
	return out.Interface().(T)
}

// CopyOf is a copy of m to rewrite: of its own fields when shared (see
// SharesResources), else whole.
func CopyOf[T proto.Message](m T, shared bool) T {
	if shared {
		return topCopy(m)
	}
	return proto.Clone(m).(T)
}

// put records that a holds inner, which a.Value encodes.
func (d *Decoded) put(a *anypb.Any, inner proto.Message) {
	if d != nil {
		d.m.Store(a, decodedAny{msg: inner})
	}
}

// putRewritten records that a, whose bytes had key before, now holds inner,
// which a.Value does not encode (LazyPacking). Without a key (an Any too
// large to remember, see Walker.walkAny) only a's content is recorded.
func (d *Decoded) putRewritten(a *anypb.Any, key string, inner proto.Message) {
	d.m.Store(a, decodedAny{msg: inner, stale: true})
	if key == "" {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.rewritten == nil {
		d.rewritten = map[string]proto.Message{}
	}
	d.rewritten[key] = inner
}

// rewrittenAs is the content an Any whose bytes were key was rewritten to
// without being packed, or nil.
func (d *Decoded) rewrittenAs(key string) proto.Message {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.rewritten[key]
}

// SharesResources says a bootstrap built with d may hold the resources'
// own messages rather than copies of them: with lazy packing, the walks
// that inline it change nothing they are given (rewritten content is
// recorded here, and what is printed packed is a copy: see packed).
// Copying the listeners and secrets was a tenth of the memory of `render
// -o yaml` at 20,000 HTTPProxies.
func (d *Decoded) SharesResources() bool { return d != nil && d.LazyPacking }

// Packed returns m with the rewritten content of every Any in it whose
// bytes are stale packed, for what reads the bytes (protojson): m itself
// when there can be none, else a copy, since m may share its messages
// with the resources the bootstrap was built from. Rewritten content can
// be shared by several Anys, so one pass at a time.
func (d *Decoded) Packed(m proto.Message) (proto.Message, error) {
	if d == nil || !d.LazyPacking {
		return m, nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.packedCopy(m)
}

func (d *Decoded) packedCopy(m proto.Message) (proto.Message, error) {
	c := proto.Clone(m)
	return c, d.packInto(m.ProtoReflect(), c.ProtoReflect())
}

// packInto packs, in dst, a copy of src, the content of each Any whose
// counterpart in src has stale bytes, innermost first.
func (d *Decoded) packInto(src, dst protoreflect.Message) error {
	if a, ok := src.Interface().(*anypb.Any); ok {
		e, found := d.m.Load(a)
		if !found || !e.(decodedAny).stale {
			return nil
		}
		inner, err := d.packedCopy(e.(decodedAny).msg)
		if err != nil {
			return err
		}
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(inner)
		if err != nil {
			return err
		}
		dst.Interface().(*anypb.Any).Value = b
		return nil
	}
	var err error
	src.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			to := dst.Get(fd).List()
			for i := 0; i < v.List().Len() && err == nil; i++ {
				err = d.packInto(v.List().Get(i).Message(), to.Get(i).Message())
			}
		case fd.IsMap() && fd.MapValue().Message() != nil:
			to := dst.Get(fd).Map()
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				err = d.packInto(mv.Message(), to.Get(k).Message())
				return err == nil
			})
		case !fd.IsList() && !fd.IsMap() && fd.Message() != nil:
			err = d.packInto(v.Message(), dst.Get(fd).Message())
		}
		return err == nil
	})
	return err
}
