package protowalk

// A depth-first walk over a proto message that also descends into
// google.protobuf.Any values. Envoy keeps most of its configuration (the HTTP
// connection manager, TLS contexts, HTTP filters) in typed_config Anys, so a
// walk that stopped at an Any would miss exactly the parts that carry RDS and
// SDS references, and protoc-gen-validate, which does stop there, would leave
// them unchecked.

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/contourc/contourc/render/internal/presence"
)

// Walker visits every message inside a root message, parents before
// children, in field declaration order, so the first error found is the same
// on every run.
type Walker struct {
	// Visit is called on every message before its fields are walked, so a
	// field it sets is walked too. It reports whether it changed m; an Any
	// whose content changed is packed again.
	Visit func(m protoreflect.Message) (changed bool, err error)
	// Unpacked, if set, is called on the content of every Any before the
	// content is walked.
	Unpacked func(m proto.Message) error
	// Seen, when set, skips Anys of up to MaxCachedAny bytes whose exact
	// content (type and bytes) was walked before. Only read-only walks
	// may use it: Contour's resources repeat the same filter
	// configurations in every filter chain, and checking each once is
	// enough.
	Seen map[string]bool
	// Memo, when set, remembers the outcome of walking each Any (its
	// bytes afterwards) by type and bytes, so a repeated Any is walked
	// once and gets the same rewrite. It requires visit to depend only on
	// the content it is given. faults, if set, counts the problems visit
	// has recorded without failing; an Any whose walk recorded some is not
	// remembered, so each place it occurs is reported.
	Memo   map[string][]byte
	Faults func() int
	// Admit, when set, says whether to walk m at all; a message it turns
	// away is neither visited nor walked into.
	Admit func(m protoreflect.Message) bool
	// Targets, when set, are the only message types visit acts on: it is
	// called on those alone, and the walk enters only fields that can
	// hold one.
	Targets *presence.Targets
	// Decoded, when set, gives the contents of Anys decoded before and
	// receives those this walk decodes.
	Decoded *Decoded
	// Rewrites says visit changes messages (the inliner's walk), so that
	// with decoded.LazyPacking the Anys it changes are left unpacked.
	Rewrites bool

	path []Step
}

// packsLazily says whether Anys this walk rewrites keep their old bytes.
func (w *Walker) packsLazily() bool {
	return w.Rewrites && w.Decoded != nil && w.Decoded.LazyPacking
}

// rewrittenAs is the content this walk rewrote an Any whose bytes were key
// to, when it left it unpacked; else nil.
func (w *Walker) rewrittenAs(key string) proto.Message {
	if !w.packsLazily() {
		return nil
	}
	return w.Decoded.rewrittenAs(key)
}

// anyDescriptor tells an Any without unwrapping every message walked.
var anyDescriptor = (&anypb.Any{}).ProtoReflect().Descriptor()

// Step is one field on the way from the root to the message being visited.
// Only errors format it, so it holds what is needed to name the field rather
// than a string.
type Step struct {
	Field protoreflect.FieldDescriptor
	Index int    // list index, or -1
	key   string // map key, when field is a map
	Elem  protoreflect.Message
}

// walkError is a visitor's error with the path of the message it was about.
type walkError struct {
	path string
	err  error
}

func (e *walkError) Error() string {
	if e.path == "" {
		return e.err.Error()
	}
	return e.path + ": " + e.err.Error()
}

func (e *walkError) Unwrap() error { return e.err }

func (w *Walker) Walk(m protoreflect.Message) (bool, error) {
	if m.Descriptor() == anyDescriptor {
		if a, ok := m.Interface().(*anypb.Any); ok {
			return w.walkAny(a)
		}
	}
	if w.Admit != nil && !w.Admit(m) {
		return false, nil
	}
	changed := false
	if w.Visit != nil && (w.Targets == nil || w.Targets.Names[m.Descriptor().FullName()]) {
		c, err := w.Visit(m)
		if err != nil {
			return c, w.Fail(err)
		}
		changed = c
	}
	p := presence.For(m)
	base := p.Base(m)
	// Only fields that can hold something the walk is for need entering:
	// a target of the visitor's, or for a validation walk an Any (the
	// rest ValidateAll checked). A visitor with no targets sees all.
	targets := w.Targets
	if targets == nil && w.Visit == nil {
		targets = presence.AnyTargets
	}
	for _, i := range p.FieldsToEnter(targets) {
		if !p.Has(m, base, i) {
			continue
		}
		c, err := w.walkField(p.Fields[i].FD, p.Get(m, base, i))
		changed = changed || c
		if err != nil {
			return changed, err
		}
	}
	return changed, nil
}

func (w *Walker) walkField(fd protoreflect.FieldDescriptor, v protoreflect.Value) (bool, error) {
	switch {
	case fd.IsList():
		return w.walkList(fd, v.List())
	case fd.IsMap():
		return w.walkMap(fd, v.Map())
	default:
		return w.Enter(Step{Field: fd, Index: -1}, v.Message())
	}
}

func (w *Walker) walkList(fd protoreflect.FieldDescriptor, l protoreflect.List) (bool, error) {
	changed := false
	for i := 0; i < l.Len(); i++ {
		e := l.Get(i).Message()
		c, err := w.Enter(Step{Field: fd, Index: i, Elem: e}, e)
		changed = changed || c
		if err != nil {
			return changed, err
		}
	}
	return changed, nil
}

// walkMap walks map values in key order: Go map order must not decide which
// error is reported first.
func (w *Walker) walkMap(fd protoreflect.FieldDescriptor, m protoreflect.Map) (bool, error) {
	if fd.MapValue().Message() == nil {
		return false, nil
	}
	keys := make([]protoreflect.MapKey, 0, m.Len())
	m.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
		keys = append(keys, k)
		return true
	})
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	changed := false
	for _, k := range keys {
		c, err := w.Enter(Step{Field: fd, Index: -1, key: k.String()}, m.Get(k).Message())
		changed = changed || c
		if err != nil {
			return changed, err
		}
	}
	return changed, nil
}

func (w *Walker) Enter(s Step, m protoreflect.Message) (bool, error) {
	w.path = append(w.path, s)
	c, err := w.Walk(m)
	w.path = w.path[:len(w.path)-1]
	return c, err
}

// walkAny walks the content of a, packing it again (deterministically) when
// the walk changed it. An Any whose type is not linked into the binary is an
// error: nothing could be checked or rewritten inside it, and protojson could
// not print it either.
func (w *Walker) walkAny(a *anypb.Any) (bool, error) {
	// A large Any (a filter chain's connection manager) is unique: no walk
	// need remember it, nor build its key (kilobytes, kept as long as the
	// memo and the rewrites: 116 MB of a bootstrap at 20,000 HTTPProxies).
	if w.Memo == nil || len(a.GetValue()) > MaxCachedAny {
		return w.walkAnyContent(a, "")
	}
	// Built once at its size and viewed as a string, not copied: a
	// connection manager's key is kilobytes, and growing it and copying
	// it were 5% of render -o yaml's CPU. Nothing writes to it after.
	buf := AnyKey(make([]byte, 0, len(a.GetTypeUrl())+1+len(a.GetValue())), a.GetTypeUrl(), a.GetValue())
	key := unsafe.String(unsafe.SliceData(buf), len(buf))
	if after, ok := w.Memo[key]; ok {
		if inner := w.rewrittenAs(key); inner != nil {
			w.Decoded.putRewritten(a, key, inner) // rewritten, not packed: share the content
			return true, nil
		}
		if string(after) == string(a.GetValue()) {
			return false, nil
		}
		a.Value = after
		return true, nil
	}
	faults := 0
	if w.Faults != nil {
		faults = w.Faults()
	}
	changed, err := w.walkAnyContent(a, key)
	if err == nil && (w.Faults == nil || w.Faults() == faults) {
		w.Memo[key] = a.GetValue()
	}
	return changed, err
}

// walkAnyContent walks a's content; key is a's AnyKey, when the caller made
// it.
func (w *Walker) walkAnyContent(a *anypb.Any, key string) (bool, error) {
	// Large Anys (a whole HTTP connection manager) are unique: remembering
	// them would only cost memory.
	if w.Seen != nil && len(a.GetValue()) <= MaxCachedAny {
		var keyBuf [MaxCachedAny + 256]byte
		key := AnyKey(keyBuf[:0], a.GetTypeUrl(), a.GetValue())
		if w.Seen[string(key)] {
			return false, nil
		}
		w.Seen[string(key)] = true
	}
	known := w.Decoded.Get(a)
	inner := known
	if inner == nil {
		inner = w.Decoded.unpackedCopy(a)
	}
	if inner == nil {
		var err error
		if inner, err = a.UnmarshalNew(); err != nil {
			return false, w.Fail(fmt.Errorf("cannot unpack %s: %w", a.GetTypeUrl(), err))
		}
	}
	if w.Unpacked != nil {
		if err := w.Unpacked(inner); err != nil {
			return false, w.Fail(err)
		}
	}
	changed, err := w.Walk(inner.ProtoReflect())
	if err != nil {
		return changed, err
	}
	if changed && w.packsLazily() {
		w.Decoded.putRewritten(a, key, inner)
		return true, nil
	}
	if changed {
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(inner)
		if err != nil {
			return true, w.Fail(err)
		}
		a.Value = b
	}
	if known == nil || changed {
		// Not when it was known: its record may say a.Value is stale.
		w.Decoded.put(a, inner)
	}
	return changed, nil
}

// ErrorAt is err about the message reached from its parent by at.
func ErrorAt(at Step, err error) error {
	return &walkError{path: (&Walker{path: []Step{at}}).formatPath(), err: err}
}

// Fail attaches the current path to err, unless a deeper walk already did.
func (w *Walker) Fail(err error) error {
	if _, ok := err.(*walkError); ok {
		return err
	}
	return &walkError{path: w.formatPath(), err: err}
}

// formatPath names list elements by their name field when they have one
// (listeners["ingress_http"]), since indexes mean little to a reader.
func (w *Walker) formatPath() string {
	var b strings.Builder
	for i, s := range w.path {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(string(s.Field.Name()))
		switch {
		case s.Field.IsMap():
			b.WriteString("[" + strconv.Quote(s.key) + "]")
		case s.Index >= 0:
			if name := elementName(s.Elem); name != "" {
				b.WriteString("[" + strconv.Quote(name) + "]")
			} else {
				b.WriteString("[" + strconv.Itoa(s.Index) + "]")
			}
		}
	}
	return b.String()
}

// elementName is m's string field "name" (or "cluster_name"), if set.
func elementName(m protoreflect.Message) string {
	for _, f := range []protoreflect.Name{"name", "cluster_name"} {
		fd := m.Descriptor().Fields().ByName(f)
		if fd != nil && fd.Kind() == protoreflect.StringKind && !fd.IsList() && m.Has(fd) {
			return m.Get(fd).String()
		}
	}
	return ""
}

// MaxCachedAny bounds the size of the Anys whose JSON is remembered: the
// repeated ones are small filter configs, while large ones (a whole HTTP
// connection manager naming its own route table) are unique and would only
// fill memory.
const MaxCachedAny = 4 << 10

// AnyKey appends the identity of a packed message, its type and bytes.
func AnyKey(dst []byte, typeURL string, value []byte) []byte {
	dst = append(dst, typeURL...)
	dst = append(dst, 0)
	return append(dst, value...)
}
