package render

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
	"sync"
	"unsafe"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
)

// walker visits every message inside a root message, parents before
// children, in field declaration order, so the first error found is the same
// on every run.
type walker struct {
	// visit is called on every message before its fields are walked, so a
	// field it sets is walked too. It reports whether it changed m; an Any
	// whose content changed is packed again.
	visit func(m protoreflect.Message) (changed bool, err error)
	// unpacked, if set, is called on the content of every Any before the
	// content is walked.
	unpacked func(m proto.Message) error
	// seen, when set, skips Anys of up to maxCachedAny bytes whose exact
	// content (type and bytes) was walked before. Only read-only walks
	// may use it: Contour's resources repeat the same filter
	// configurations in every filter chain, and checking each once is
	// enough.
	seen map[string]bool
	// memo, when set, remembers the outcome of walking each Any (its
	// bytes afterwards) by type and bytes, so a repeated Any is walked
	// once and gets the same rewrite. It requires visit to depend only on
	// the content it is given. faults, if set, counts the problems visit
	// has recorded without failing; an Any whose walk recorded some is not
	// remembered, so each place it occurs is reported.
	memo   map[string][]byte
	faults func() int
	// admit, when set, says whether to walk m at all; a message it turns
	// away is neither visited nor walked into.
	admit func(m protoreflect.Message) bool
	// targets, when set, are the only message types visit acts on: it is
	// called on those alone, and the walk enters only fields that can
	// hold one.
	targets *typeTargets
	// decoded, when set, gives the contents of Anys decoded before and
	// receives those this walk decodes.
	decoded *decodedAnys
	// rewrites says visit changes messages (the inliner's walk), so that
	// with decoded.lazyPacking the Anys it changes are left unpacked.
	rewrites bool

	path []step
}

// packsLazily says whether Anys this walk rewrites keep their old bytes.
func (w *walker) packsLazily() bool {
	return w.rewrites && w.decoded != nil && w.decoded.lazyPacking
}

// rewrittenAs is the content this walk rewrote an Any whose bytes were key
// to, when it left it unpacked; else nil.
func (w *walker) rewrittenAs(key string) proto.Message {
	if !w.packsLazily() {
		return nil
	}
	return w.decoded.rewrittenAs(key)
}

// anyDescriptor tells an Any without unwrapping every message walked.
var anyDescriptor = (&anypb.Any{}).ProtoReflect().Descriptor()

// step is one field on the way from the root to the message being visited.
// Only errors format it, so it holds what is needed to name the field rather
// than a string.
type step struct {
	field protoreflect.FieldDescriptor
	index int    // list index, or -1
	key   string // map key, when field is a map
	elem  protoreflect.Message
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

func (w *walker) walk(m protoreflect.Message) (bool, error) {
	if m.Descriptor() == anyDescriptor {
		if a, ok := m.Interface().(*anypb.Any); ok {
			return w.walkAny(a)
		}
	}
	if w.admit != nil && !w.admit(m) {
		return false, nil
	}
	changed := false
	if w.visit != nil && (w.targets == nil || w.targets.names[m.Descriptor().FullName()]) {
		c, err := w.visit(m)
		if err != nil {
			return c, w.fail(err)
		}
		changed = c
	}
	p := presenceFor(m)
	base := p.base(m)
	// Only fields that can hold something the walk is for need entering:
	// a target of the visitor's, or for a validation walk an Any (the
	// rest ValidateAll checked). A visitor with no targets sees all.
	targets := w.targets
	if targets == nil && w.visit == nil {
		targets = anyTargets
	}
	for _, i := range p.fieldsToEnter(targets) {
		if !p.has(m, base, i) {
			continue
		}
		c, err := w.walkField(p.fields[i].fd, p.get(m, base, i))
		changed = changed || c
		if err != nil {
			return changed, err
		}
	}
	return changed, nil
}

func (w *walker) walkField(fd protoreflect.FieldDescriptor, v protoreflect.Value) (bool, error) {
	switch {
	case fd.IsList():
		return w.walkList(fd, v.List())
	case fd.IsMap():
		return w.walkMap(fd, v.Map())
	default:
		return w.enter(step{field: fd, index: -1}, v.Message())
	}
}

func (w *walker) walkList(fd protoreflect.FieldDescriptor, l protoreflect.List) (bool, error) {
	changed := false
	for i := 0; i < l.Len(); i++ {
		e := l.Get(i).Message()
		c, err := w.enter(step{field: fd, index: i, elem: e}, e)
		changed = changed || c
		if err != nil {
			return changed, err
		}
	}
	return changed, nil
}

// walkMap walks map values in key order: Go map order must not decide which
// error is reported first.
func (w *walker) walkMap(fd protoreflect.FieldDescriptor, m protoreflect.Map) (bool, error) {
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
		c, err := w.enter(step{field: fd, index: -1, key: k.String()}, m.Get(k).Message())
		changed = changed || c
		if err != nil {
			return changed, err
		}
	}
	return changed, nil
}

func (w *walker) enter(s step, m protoreflect.Message) (bool, error) {
	w.path = append(w.path, s)
	c, err := w.walk(m)
	w.path = w.path[:len(w.path)-1]
	return c, err
}

// walkAny walks the content of a, packing it again (deterministically) when
// the walk changed it. An Any whose type is not linked into the binary is an
// error: nothing could be checked or rewritten inside it, and protojson could
// not print it either.
func (w *walker) walkAny(a *anypb.Any) (bool, error) {
	// A large Any (a filter chain's connection manager) is unique: no walk
	// need remember it, nor build its key (kilobytes, kept as long as the
	// memo and the rewrites: 116 MB of a bootstrap at 20,000 HTTPProxies).
	if w.memo == nil || len(a.GetValue()) > maxCachedAny {
		return w.walkAnyContent(a, "")
	}
	// Built once at its size and viewed as a string, not copied: a
	// connection manager's key is kilobytes, and growing it and copying
	// it were 5% of render -o yaml's CPU. Nothing writes to it after.
	buf := anyKey(make([]byte, 0, len(a.GetTypeUrl())+1+len(a.GetValue())), a.GetTypeUrl(), a.GetValue())
	key := unsafe.String(unsafe.SliceData(buf), len(buf))
	if after, ok := w.memo[key]; ok {
		if inner := w.rewrittenAs(key); inner != nil {
			w.decoded.putRewritten(a, key, inner) // rewritten, not packed: share the content
			return true, nil
		}
		if string(after) == string(a.GetValue()) {
			return false, nil
		}
		a.Value = after
		return true, nil
	}
	faults := 0
	if w.faults != nil {
		faults = w.faults()
	}
	changed, err := w.walkAnyContent(a, key)
	if err == nil && (w.faults == nil || w.faults() == faults) {
		w.memo[key] = a.GetValue()
	}
	return changed, err
}

// walkAnyContent walks a's content; key is a's anyKey, when the caller made
// it.
func (w *walker) walkAnyContent(a *anypb.Any, key string) (bool, error) {
	// Large Anys (a whole HTTP connection manager) are unique: remembering
	// them would only cost memory.
	if w.seen != nil && len(a.GetValue()) <= maxCachedAny {
		var keyBuf [maxCachedAny + 256]byte
		key := anyKey(keyBuf[:0], a.GetTypeUrl(), a.GetValue())
		if w.seen[string(key)] {
			return false, nil
		}
		w.seen[string(key)] = true
	}
	known := w.decoded.get(a)
	inner := known
	if inner == nil {
		inner = w.decoded.unpackedCopy(a)
	}
	if inner == nil {
		var err error
		if inner, err = a.UnmarshalNew(); err != nil {
			return false, w.fail(fmt.Errorf("cannot unpack %s: %w", a.GetTypeUrl(), err))
		}
	}
	if w.unpacked != nil {
		if err := w.unpacked(inner); err != nil {
			return false, w.fail(err)
		}
	}
	changed, err := w.walk(inner.ProtoReflect())
	if err != nil {
		return changed, err
	}
	if changed && w.packsLazily() {
		w.decoded.putRewritten(a, key, inner)
		return true, nil
	}
	if changed {
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(inner)
		if err != nil {
			return true, w.fail(err)
		}
		a.Value = b
	}
	if known == nil || changed {
		// Not when it was known: its record may say a.Value is stale.
		w.decoded.put(a, inner)
	}
	return changed, nil
}

// fail attaches the current path to err, unless a deeper walk already did.
func (w *walker) fail(err error) error {
	if _, ok := err.(*walkError); ok {
		return err
	}
	return &walkError{path: w.formatPath(), err: err}
}

// formatPath names list elements by their name field when they have one
// (listeners["ingress_http"]), since indexes mean little to a reader.
func (w *walker) formatPath() string {
	var b strings.Builder
	for i, s := range w.path {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(string(s.field.Name()))
		switch {
		case s.field.IsMap():
			b.WriteString("[" + strconv.Quote(s.key) + "]")
		case s.index >= 0:
			if name := elementName(s.elem); name != "" {
				b.WriteString("[" + strconv.Quote(name) + "]")
			} else {
				b.WriteString("[" + strconv.Itoa(s.index) + "]")
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

// typeTargets is a set of message types a walk looks for. A message whose
// type cannot contain one, at any depth, need not be walked; an Any can
// contain anything, so it is always a target.
type typeTargets struct {
	names map[protoreflect.FullName]bool
	reach sync.Map // protoreflect.FullName -> bool, see reaches
}

func newTypeTargets(types ...proto.Message) *typeTargets {
	t := &typeTargets{names: map[protoreflect.FullName]bool{"google.protobuf.Any": true}}
	for _, m := range types {
		t.names[m.ProtoReflect().Descriptor().FullName()] = true
	}
	return t
}

// anyTargets is the set of validation walks: Anys alone.
var anyTargets = newTypeTargets()

// reachesAny says whether a message of type md can contain a
// google.protobuf.Any, itself or in any field below it.
func reachesAny(md protoreflect.MessageDescriptor) bool { return anyTargets.reaches(md) }

// reachesField says whether fd's values can hold a target.
func (t *typeTargets) reachesField(fd protoreflect.FieldDescriptor) bool {
	if fd.IsMap() {
		fd = fd.MapValue()
	}
	md := fd.Message()
	return md != nil && t.reaches(md)
}

// reaches says whether a message of type md is a target or can contain
// one in a field below it.
func (t *typeTargets) reaches(md protoreflect.MessageDescriptor) bool {
	if v, ok := t.reach.Load(md.FullName()); ok {
		return v.(bool)
	}
	// Work out every type reachable from md that is not known yet, then
	// mark, from the targets backwards, each one that leads to a target.
	// Types may be recursive, so the answer for one type needs the whole
	// graph below it.
	graph := map[protoreflect.FullName][]protoreflect.FullName{} // type -> field types
	reaches := map[protoreflect.FullName]bool{}
	var collect func(md protoreflect.MessageDescriptor)
	collect = func(md protoreflect.MessageDescriptor) {
		name := md.FullName()
		if _, done := graph[name]; done {
			return
		}
		graph[name] = nil
		if v, ok := t.reach.Load(name); ok {
			reaches[name] = v.(bool)
			return
		}
		reaches[name] = t.names[name]
		fds := md.Fields()
		for i := range fds.Len() {
			fd := fds.Get(i)
			if fd.IsMap() {
				fd = fd.MapValue()
			}
			if sub := fd.Message(); sub != nil {
				graph[name] = append(graph[name], sub.FullName())
				collect(sub)
			}
		}
	}
	collect(md)
	for changed := true; changed; {
		changed = false
		for name, subs := range graph {
			if reaches[name] {
				continue
			}
			for _, sub := range subs {
				if reaches[sub] {
					reaches[name], changed = true, true
					break
				}
			}
		}
	}
	for name, v := range reaches {
		t.reach.LoadOrStore(name, v)
	}
	return reaches[md.FullName()]
}
