package render

// A protojson-compatible encoder that prints each distinct packed config
// once.
//
// Contour repeats the same typed configs (HTTP filters, access loggers, TLS
// parameters) in every filter chain, and protojson re-decodes and re-prints
// each Any every time: for 5,000 virtual hosts that was most of the time of
// writing the output. This encoder prints the same JSON as
// protojson.MarshalOptions{UseProtoNames: true} (up to whitespace, which the
// indenter rebuilds; a test compares the two on every parity case), and
// remembers the JSON of each Any by its type URL and bytes. Well-known types
// other than Any, which are small and have special forms, are left to
// protojson itself. On any error the caller falls back to protojson, whose
// error message is the reference.

import (
	"encoding/base64"
	"errors"
	"hash/crc32"
	"hash/maphash"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/contourc/contourc/internal/par"
	"github.com/contourc/contourc/translate"
)

// maxCachedAny bounds the size of the Anys whose JSON is remembered: the
// repeated ones are small filter configs, while large ones (a whole HTTP
// connection manager naming its own route table) are unique and would only
// fill memory.
const maxCachedAny = 4 << 10

// errFallback sends a message to protojson: something this encoder does not
// print the way protojson does, or an error protojson should word.
var errFallback = errors.New("render: not handled by the fast JSON encoder")

// jsonEncoder prints messages as protojson, compact or, when indent is
// set, laid out as json.Indent lays out with two spaces and prefix. It is
// safe for concurrent use.
//
// Printing the layout directly, rather than re-indenting compact JSON,
// saves a pass and a copy of every byte, and lets the one huge list of a
// resource (the HTTPS listener's filter chains, the HTTP route table's
// virtual hosts) be printed in pieces on every CPU.
type jsonEncoder struct {
	indent bool
	prefix string
	// validate runs Envoy's validation rules on each resource and on each
	// packed config as it is unpacked for printing, which saves Validate's
	// unpacking them all a second time.
	validate bool
	anys     *anyCache // by anyKey, and depth when indenting; nil caches nothing
	// decoded, when set, gives the contents of Anys decoded before, so
	// that they are not decoded again to be printed; unpacked those the
	// translation remembered as it packed them.
	decoded  *decodedAnys
	unpacked *translate.Unpacked
	// segments, on an encoder printing one resource, is passed the
	// resource's own long list piece by piece, in order, as the pieces are
	// printed, rather than joined into one buffer: for a big listener
	// that is tens of megabytes less to copy, and less to hold when the
	// pieces are written out as they come (JSONStream).
	segments *segmentPasser
	// drop, on an encoder printing every resource once (JSONStreamOnce),
	// lets go of each resource once printed, and of its unpacked configs.
	drop bool
	// shared, on an encoder one goroutine prints with (forWorker), holds
	// the JSON of messages printed more than once.
	shared *sharedJSON
}

// forWorker is e for one goroutine to print with.
func (e *jsonEncoder) forWorker() *jsonEncoder {
	w := *e
	w.shared = newSharedJSON(sharedSlots)
	return &w
}

// segmentPasser passes on, in order, the segments of one resource printed
// so far, and remembers how many bytes it passed and their checksum.
type segmentPasser struct {
	// pass passes a segment on and reports whether it took its buffer;
	// otherwise the buffer can be printed into again.
	pass   func(segment []byte) (taken bool)
	passed int
	sum    uint32
}

func (p *segmentPasser) add(segment []byte) (taken bool) {
	p.passed += len(segment)
	p.sum = crc32.Update(p.sum, castagnoli(), segment)
	return p.pass(segment)
}

// castagnoli is made on first use: making it computes the SSE 4.2
// tables, 0.2-0.3 ms that every run (`contourc version` too) paid at
// start when it was a package variable.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// rest is the part of a resource's JSON, printed whole, that comes after
// what p passed on already. It is for a resource left to protojson after
// some of its pieces were passed on: the fast encoder prints what protojson
// prints, so the bytes passed are the start of protojson's, which the
// checksum confirms.
func (p *segmentPasser) rest(whole []byte) ([]byte, error) {
	if len(whole) < p.passed || crc32.Checksum(whole[:p.passed], castagnoli()) != p.sum {
		return nil, errors.New("render: the fast JSON encoder and protojson disagree")
	}
	return whole[p.passed:], nil
}

// compactEncoder prints compact JSON.
func compactEncoder() *jsonEncoder { return &jsonEncoder{anys: &anyCache{}} }

// invalidError is a message that breaks Envoy's validation rules, found by
// a validating encoder.
type invalidError struct{ err error }

func (e *invalidError) Error() string { return e.err.Error() }
func (e *invalidError) Unwrap() error { return e.err }

// indentedEncoder prints as json.Indent(dst, compact, prefix, "  ") would.
func indentedEncoder(prefix string) *jsonEncoder {
	return &jsonEncoder{indent: true, prefix: prefix, anys: &anyCache{}}
}

// marshal appends m's JSON to dst, falling back to protojson for what this
// encoder leaves to it.
func (e *jsonEncoder) marshal(dst []byte, m proto.Message) ([]byte, error) {
	if e.validate {
		if err := validateOne(m); err != nil {
			return dst, &invalidError{err}
		}
	}
	out, err := e.message(dst, m.ProtoReflect(), 0)
	if err == nil {
		return out, nil
	}
	if _, invalid := err.(*invalidError); invalid {
		return dst, err
	}
	// protojson unpacks nothing for validation: check what this encoder
	// did not get to.
	if e.validate {
		if err := validateDeep(m); err != nil {
			return dst, &invalidError{err}
		}
	}
	// protojson reads Anys' bytes, which a lazily packed rewrite left
	// stale.
	m, err = e.decoded.packed(m)
	if err != nil {
		return dst, err
	}
	if e.segments == nil || e.segments.passed == 0 {
		return e.viaProtojson(dst[:len(dst):len(dst)], m, 0)
	}
	whole, err := e.viaProtojson(nil, m, 0)
	if err != nil {
		return dst, err
	}
	return e.segments.rest(whole)
}

// viaProtojson appends protojson's output for m at depth, laid out as the
// rest: protojson varies its whitespace on purpose.
func (e *jsonEncoder) viaProtojson(dst []byte, m proto.Message, depth int) ([]byte, error) {
	if !e.indent {
		return protoJSON.MarshalAppend(dst, m)
	}
	js, err := protoJSON.Marshal(m)
	if err != nil {
		return dst, err
	}
	return appendIndented(dst, js, e.prefix+strings.Repeat(indentUnit, depth)), nil
}

// member starts the next member of the object or array at depth: a comma
// unless it is the first, then, when indenting, a new line one level in.
func (e *jsonEncoder) member(dst []byte, depth int, first bool) []byte {
	if !first {
		dst = append(dst, ',')
	}
	if e.indent {
		dst = newLine(dst, e.prefix, depth+1)
	}
	return dst
}

// end closes the object or array at depth with c; json.Indent puts the
// bracket of a non-empty one on a line of its own.
func (e *jsonEncoder) end(dst []byte, depth int, c byte, empty bool) []byte {
	if e.indent && !empty {
		dst = newLine(dst, e.prefix, depth)
	}
	return append(dst, c)
}

// key appends an object member's name and colon.
func (e *jsonEncoder) key(dst []byte, name string) []byte {
	dst = append(dst, '"')
	dst = append(dst, name...)
	dst = append(dst, '"', ':')
	if e.indent {
		dst = append(dst, ' ')
	}
	return dst
}

func (e *jsonEncoder) message(dst []byte, m protoreflect.Message, depth int) ([]byte, error) {
	return e.planned(dst, presenceFor(m), m, depth)
}

// planned is message for m, whose presence plan is p.
func (e *jsonEncoder) planned(dst []byte, p *presencePlan, m protoreflect.Message, depth int) ([]byte, error) {
	switch p.family {
	case familyAny:
		return e.anyMessage(dst, m, depth)
	case familyWellKnown:
		return e.wellKnown(dst, m, depth)
	}
	dst = append(dst, '{')
	dst, n, err := e.fieldsPlanned(dst, p, m, depth, 0)
	return e.end(dst, depth, '}', n == 0), err
}

// fields appends m's populated fields in declaration order, as members of
// the object at depth that already has written members, and returns how
// many members the object then has.
func (e *jsonEncoder) fields(dst []byte, m protoreflect.Message, depth, written int) ([]byte, int, error) {
	return e.fieldsPlanned(dst, presenceFor(m), m, depth, written)
}

// fieldsPlanned is fields for m, whose presence plan is p. Message fields,
// lists of messages and the common maps are read from the struct, with
// their plans kept in p, rather than through protoreflect.
func (e *jsonEncoder) fieldsPlanned(dst []byte, p *presencePlan, m protoreflect.Message, depth, written int) ([]byte, int, error) {
	base := p.base(m)
	for i := range p.fields {
		if !p.has(m, base, i) {
			continue
		}
		f := &p.fields[i]
		dst = e.member(dst, depth, written == 0)
		written++
		dst = e.key(dst, f.fd.TextName())
		var err error
		switch {
		case base != nil && f.read == readMessageList:
			dst, err = e.sharedList(dst, p, i, *(*[]unsafe.Pointer)(unsafe.Add(base, f.offset)), depth+1)
		case base != nil && f.read == readStringList:
			dst, err = e.stringList(dst, *(*[]string)(unsafe.Add(base, f.offset)), depth+1)
		case base != nil && f.read >= readStringMap:
			dst, err = e.sharedMap(dst, f, unsafe.Add(base, f.offset), depth+1)
		case f.read == readMessage:
			if at := p.messagePointer(base, i); at != nil && e.shared != nil {
				dst, err = e.sharedMessage(dst, p, i, at, depth+1)
				break
			}
			sub := p.get(m, base, i).Message()
			dst, err = e.planned(dst, p.sub(i, sub), sub, depth+1)
		case f.fd.IsList():
			dst, err = e.list(dst, p.get(m, base, i).List(), f.fd, depth+1)
		case f.fd.IsMap():
			dst, err = e.mapValue(dst, p.get(m, base, i).Map(), f.fd, depth+1)
		default:
			dst, err = e.singular(dst, p.get(m, base, i), f.fd, depth+1)
		}
		if err != nil {
			return dst, written, err
		}
	}
	return dst, written, nil
}

// messageList prints the list of messages items, field i of a message
// whose plan is p, read from the struct: protoreflect's List makes a
// message value for each element through reflect.
func (e *jsonEncoder) messageList(dst []byte, p *presencePlan, i int, items []unsafe.Pointer, depth int) ([]byte, error) {
	tab := p.fields[i].message
	print := func(e *jsonEncoder, dst []byte, k int) ([]byte, error) {
		m := messageAt(tab, items[k])
		return e.planned(dst, p.sub(i, m), m, depth+1)
	}
	return e.listOf(dst, len(items), true, print, depth)
}

// maxPiece is the most elements of a long list printed as one piece.
const maxPiece = 128

// minSplitList is the length from which a list of messages is printed in
// pieces on every CPU: even at 100 virtual hosts the HTTPS listener is
// half of the output, and one CPU printing it alone left the other idle.
const minSplitList = 32

func (e *jsonEncoder) list(dst []byte, l protoreflect.List, fd protoreflect.FieldDescriptor, depth int) ([]byte, error) {
	print := func(e *jsonEncoder, dst []byte, k int) ([]byte, error) { return e.singular(dst, l.Get(k), fd, depth+1) }
	return e.listOf(dst, l.Len(), fd.Message() != nil, print, depth)
}

// stringList prints a list of strings read from the struct: protoreflect's
// List converts each element through reflect.
func (e *jsonEncoder) stringList(dst []byte, items []string, depth int) ([]byte, error) {
	print := func(_ *jsonEncoder, dst []byte, k int) ([]byte, error) { return appendJSONString(dst, items[k]) }
	return e.listOf(dst, len(items), false, print, depth)
}

// elementPrinter appends element k of a list with e.
type elementPrinter func(e *jsonEncoder, dst []byte, k int) ([]byte, error)

// listOf prints the list of n elements at depth that print prints; a long
// list of messages is printed in pieces on every CPU.
func (e *jsonEncoder) listOf(dst []byte, n int, messages bool, print elementPrinter, depth int) ([]byte, error) {
	dst = append(dst, '[')
	var err error
	if n >= minSplitList && messages {
		dst, err = e.listInPieces(dst, n, print, depth)
	} else {
		dst, err = e.elements(dst, print, depth, 0, n)
	}
	return e.end(dst, depth, ']', n == 0), err
}

// elements appends the elements from..to-1 of the array at depth.
func (e *jsonEncoder) elements(dst []byte, print elementPrinter, depth, from, to int) ([]byte, error) {
	for i := from; i < to; i++ {
		dst = e.member(dst, depth, i == 0)
		var err error
		if dst, err = print(e, dst, i); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// listInPieces prints a long list's n elements in pieces, on every CPU,
// and appends the pieces in order.
func (e *jsonEncoder) listInPieces(dst []byte, n int, print elementPrinter, depth int) ([]byte, error) {
	// Pieces enough to keep every CPU busy to the end, but not so small
	// that scheduling them costs more than printing them, nor so big that
	// each is a buffer of megabytes: at 20,000 HTTPProxies pieces of 1,250
	// filter chains were grown to 8-16 MB and held while they waited their
	// turn, and the collector ran three times while printing. Pieces of at
	// most maxPiece: twice, and 10-17% less time (alternating runs).
	perPiece := min(maxPiece, max(16, n/(8*runtime.GOMAXPROCS(0))))
	pieces := make([][]byte, (n+perPiece-1)/perPiece)
	errs := make([]error, len(pieces))
	passing := e.segments != nil && depth == 1
	dstTaken := false
	if passing {
		// The resource's own list: what was printed before it, then
		// each piece as soon as those before it are printed, are passed
		// on; printing goes on in dst's buffer when it was not taken.
		dstTaken = e.segments.add(dst)
	}
	var passed piecesPassed
	// Each piece starts with room for the size of the last one printed:
	// pieces are alike, and growing a buffer by doubling copies it.
	var lastSize atomic.Int64
	par.Workers(len(pieces), func() func(int) {
		pe := e.forWorker()
		return func(k int) {
			from := k * perPiece
			hint := lastSize.Load()
			pieces[k], errs[k] = pe.elements(pieceBuffer(int(hint+hint/8)), print, depth, from, min(from+perPiece, n))
			lastSize.Store(int64(len(pieces[k])))
			if passing {
				passed.printed(k, pieces, errs, e.segments)
			}
		}
	})
	size := 0
	for k, piece := range pieces {
		if errs[k] != nil {
			return dst, errs[k]
		}
		size += len(piece)
	}
	if passing && !dstTaken {
		return dst[:0], nil
	}
	if passing {
		return make([]byte, 0, 4096), nil
	}
	// A new buffer of the final size, and room for the fields after the
	// list, which would otherwise copy it all again: slices.Grow would zero
	// the room before the pieces overwrite it, tens of megabytes for a big
	// listener.
	out := append(make([]byte, 0, len(dst)+size+size/16+4096), dst...)
	for _, piece := range pieces {
		out = append(out, piece...)
		recyclePiece(piece)
	}
	return out, nil
}

// pieceBuffers holds the buffers of pieces passed on and not taken (see
// inOrder), for the next pieces: at 5,000 HTTPProxies fresh buffers were
// 85 MB of allocation, a sixth of a run's.
var pieceBuffers sync.Pool // *[]byte

// pieceBuffer is an empty buffer with room for size bytes.
func pieceBuffer(size int) []byte {
	if b, ok := pieceBuffers.Get().(*[]byte); ok && cap(*b) >= size {
		return (*b)[:0]
	}
	return make([]byte, 0, size)
}

func recyclePiece(b []byte) {
	if cap(b) > 0 {
		b = b[:0]
		pieceBuffers.Put(&b)
	}
}

// piecesPassed passes a list's pieces on in order as they are printed, in
// whatever order that is, up to the first that failed.
type piecesPassed struct {
	mu   sync.Mutex
	next int // the piece to pass on next
	done []bool
}

// printed records that piece k is printed (or failed), and passes on what
// is then ready; a passed piece is dropped from pieces, its buffer
// recycled.
func (pp *piecesPassed) printed(k int, pieces [][]byte, errs []error, to *segmentPasser) {
	pp.mu.Lock()
	defer pp.mu.Unlock()
	if pp.done == nil {
		pp.done = make([]bool, len(pieces))
	}
	pp.done[k] = true
	for pp.next < len(pieces) && pp.done[pp.next] && errs[pp.next] == nil {
		if !to.add(pieces[pp.next]) {
			recyclePiece(pieces[pp.next])
		}
		pieces[pp.next] = nil
		pp.next++
	}
}

// mapValue prints a map with its keys in protojson's order: numeric for
// numbers, false before true, bytewise for strings.
func (e *jsonEncoder) mapValue(dst []byte, mp protoreflect.Map, fd protoreflect.FieldDescriptor, depth int) ([]byte, error) {
	keys := make([]protoreflect.MapKey, 0, mp.Len())
	mp.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
		keys = append(keys, k)
		return true
	})
	slices.SortFunc(keys, compareMapKeys)
	dst = append(dst, '{')
	for i, k := range keys {
		dst = e.member(dst, depth, i == 0)
		var err error
		if dst, err = appendJSONString(dst, k.String()); err != nil {
			return dst, err
		}
		dst = append(dst, ':')
		if e.indent {
			dst = append(dst, ' ')
		}
		if dst, err = e.singular(dst, mp.Get(k), fd.MapValue(), depth+1); err != nil {
			return dst, err
		}
	}
	return e.end(dst, depth, '}', len(keys) == 0), nil
}

func compareMapKeys(a, b protoreflect.MapKey) int {
	switch x := a.Interface().(type) {
	case bool:
		y := b.Bool()
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case int32, int64:
		return cmpOrdered(a.Int(), b.Int())
	case uint32, uint64:
		return cmpOrdered(a.Uint(), b.Uint())
	}
	return strings.Compare(a.String(), b.String())
}

func cmpOrdered[T int64 | uint64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (e *jsonEncoder) singular(dst []byte, v protoreflect.Value, fd protoreflect.FieldDescriptor, depth int) ([]byte, error) {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return strconv.AppendBool(dst, v.Bool()), nil
	case protoreflect.StringKind:
		return appendJSONString(dst, v.String())
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return strconv.AppendInt(dst, v.Int(), 10), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return strconv.AppendUint(dst, v.Uint(), 10), nil
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		// protojson quotes 64-bit integers: JavaScript cannot hold them.
		dst = append(dst, '"')
		return append(strconv.AppendInt(dst, v.Int(), 10), '"'), nil
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		dst = append(dst, '"')
		return append(strconv.AppendUint(dst, v.Uint(), 10), '"'), nil
	case protoreflect.FloatKind:
		return appendJSONFloat(dst, v.Float(), 32), nil
	case protoreflect.DoubleKind:
		return appendJSONFloat(dst, v.Float(), 64), nil
	case protoreflect.BytesKind:
		dst = append(dst, '"')
		return append(base64.StdEncoding.AppendEncode(dst, v.Bytes()), '"'), nil
	case protoreflect.EnumKind:
		if fd.Enum().FullName() == "google.protobuf.NullValue" {
			return append(dst, "null"...), nil
		}
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			dst = append(dst, '"')
			return append(append(dst, ev.Name()...), '"'), nil
		}
		return strconv.AppendInt(dst, int64(v.Enum()), 10), nil
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return e.message(dst, v.Message(), depth)
	}
	return dst, errFallback
}

// wellKnown prints the well-known types Envoy's configuration is full of
// (durations, wrappers, Structs) in their special JSON forms, and leaves the
// rare others to protojson.
func (e *jsonEncoder) wellKnown(dst []byte, m protoreflect.Message, depth int) ([]byte, error) {
	if m.IsValid() {
		if out, ok, err := e.commonWellKnown(dst, m, depth); ok {
			return out, err
		}
	}
	fds := m.Descriptor().Fields()
	switch m.Descriptor().FullName() {
	case "google.protobuf.Duration":
		return appendDuration(dst, m.Get(fds.ByNumber(1)).Int(), m.Get(fds.ByNumber(2)).Int())
	case "google.protobuf.BoolValue", "google.protobuf.StringValue", "google.protobuf.BytesValue",
		"google.protobuf.Int32Value", "google.protobuf.UInt32Value", "google.protobuf.Int64Value",
		"google.protobuf.UInt64Value", "google.protobuf.FloatValue", "google.protobuf.DoubleValue":
		// A wrapper is its value alone.
		fd := fds.ByNumber(1)
		return e.singular(dst, m.Get(fd), fd, depth)
	case "google.protobuf.Struct":
		fd := fds.ByNumber(1)
		return e.mapValue(dst, m.Get(fd).Map(), fd, depth)
	case "google.protobuf.ListValue":
		fd := fds.ByNumber(1)
		return e.list(dst, m.Get(fd).List(), fd, depth)
	case "google.protobuf.Value":
		fd := m.WhichOneof(m.Descriptor().Oneofs().ByName("kind"))
		if fd == nil {
			return dst, errFallback // protojson's error: no kind set
		}
		if fd.Kind() == protoreflect.DoubleKind {
			if f := m.Get(fd).Float(); math.IsNaN(f) || math.IsInf(f, 0) {
				return dst, errFallback // JSON has no such number
			}
		}
		return e.singular(dst, m.Get(fd), fd, depth)
	case "google.protobuf.Empty":
		return append(dst, '{', '}'), nil
	}
	return e.viaProtojson(dst, m.Interface(), depth)
}

// commonWellKnown prints the commonest well-known types, read as Go
// structs rather than through reflection: every route carries a Struct, and
// durations and wrappers are everywhere. ok is false for the other types.
func (e *jsonEncoder) commonWellKnown(dst []byte, m protoreflect.Message, depth int) (_ []byte, ok bool, _ error) {
	switch v := m.Interface().(type) {
	case *durationpb.Duration:
		dst, err := appendDuration(dst, v.Seconds, int64(v.Nanos))
		return dst, true, err
	case *wrapperspb.BoolValue:
		return strconv.AppendBool(dst, v.Value), true, nil
	case *wrapperspb.UInt32Value:
		return strconv.AppendUint(dst, uint64(v.Value), 10), true, nil
	case *wrapperspb.StringValue:
		dst, err := appendJSONString(dst, v.Value)
		return dst, true, err
	case *structpb.Struct:
		dst, err := e.structFields(dst, v.Fields, depth)
		return dst, true, err
	case *structpb.Value:
		dst, err := e.structValue(dst, v, depth)
		return dst, true, err
	}
	return dst, false, nil
}

// structFields prints a Struct's fields, keys in byte order.
func (e *jsonEncoder) structFields(dst []byte, fields map[string]*structpb.Value, depth int) ([]byte, error) {
	return stringKeyed(e, dst, fields, depth, func(dst []byte, v *structpb.Value) ([]byte, error) {
		if v == nil {
			return dst, errFallback // protojson's error
		}
		return e.structValue(dst, v, depth+1)
	})
}

// stringKeyed prints a map keyed by strings as a JSON object at depth, keys
// in byte order (protojson's), each value printed by value.
func stringKeyed[V any](e *jsonEncoder, dst []byte, mp map[string]V, depth int, value func([]byte, V) ([]byte, error)) ([]byte, error) {
	// Maps here are small (a route's metadata has one or two keys): their
	// keys are sorted on the stack.
	var onStack [8]string
	keys := onStack[:0]
	for k := range mp {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		dst = e.member(dst, depth, i == 0)
		var err error
		if dst, err = appendJSONString(dst, k); err != nil {
			return dst, err
		}
		dst = append(dst, ':')
		if e.indent {
			dst = append(dst, ' ')
		}
		if dst, err = value(dst, mp[k]); err != nil {
			return dst, err
		}
	}
	return e.end(dst, depth, '}', len(keys) == 0), nil
}

// directMap prints a map field of one of the Go types the presence plan
// reads directly (see readStringMap), at depth: every route's metadata is
// a map of Structs, which protoreflect's Map ranges over through reflect.
func (e *jsonEncoder) directMap(dst []byte, f *fieldPresence, at unsafe.Pointer, depth int) ([]byte, error) {
	switch f.read {
	case readStringMap:
		return stringKeyed(e, dst, *(*map[string]string)(at), depth, appendJSONString)
	case readStructMap:
		return stringKeyed(e, dst, *(*map[string]*structpb.Struct)(at), depth, func(dst []byte, v *structpb.Struct) ([]byte, error) {
			if v == nil {
				return dst, errFallback
			}
			return e.structFields(dst, v.Fields, depth+1)
		})
	case readAnyMap:
		return stringKeyed(e, dst, *(*map[string]*anypb.Any)(at), depth, func(dst []byte, v *anypb.Any) ([]byte, error) {
			if v == nil {
				return dst, errFallback
			}
			return e.anyValue(dst, v.TypeUrl, v.Value, v, depth+1)
		})
	}
	return dst, errFallback
}

// structValue prints a google.protobuf.Value: its kind's value alone.
func (e *jsonEncoder) structValue(dst []byte, v *structpb.Value, depth int) ([]byte, error) {
	switch k := v.Kind.(type) {
	case *structpb.Value_NullValue:
		return append(dst, "null"...), nil
	case *structpb.Value_NumberValue:
		if math.IsNaN(k.NumberValue) || math.IsInf(k.NumberValue, 0) {
			return dst, errFallback // JSON has no such number
		}
		return appendJSONFloat(dst, k.NumberValue, 64), nil
	case *structpb.Value_StringValue:
		return appendJSONString(dst, k.StringValue)
	case *structpb.Value_BoolValue:
		return strconv.AppendBool(dst, k.BoolValue), nil
	case *structpb.Value_StructValue:
		return e.structFields(dst, k.StructValue.GetFields(), depth)
	case *structpb.Value_ListValue:
		values := k.ListValue.GetValues()
		dst = append(dst, '[')
		for i, item := range values {
			dst = e.member(dst, depth, i == 0)
			if item == nil {
				return dst, errFallback
			}
			var err error
			if dst, err = e.structValue(dst, item, depth+1); err != nil {
				return dst, err
			}
		}
		return e.end(dst, depth, ']', len(values) == 0), nil
	}
	return dst, errFallback // protojson's error: no kind set
}

// appendDuration prints a Duration as protojson does: seconds with 0, 3, 6
// or 9 fractional digits and an "s", e.g. "1s", "0.250s", "-1.000000001s".
func appendDuration(dst []byte, secs, nanos int64) ([]byte, error) {
	const maxSeconds = 315576000000 // 10,000 years
	if secs < -maxSeconds || secs > maxSeconds || nanos <= -1e9 || nanos >= 1e9 ||
		secs > 0 && nanos < 0 || secs < 0 && nanos > 0 {
		return dst, errFallback // protojson words the error
	}
	dst = append(dst, '"')
	if secs < 0 || nanos < 0 {
		dst = append(dst, '-')
		secs, nanos = -secs, -nanos
	}
	dst = strconv.AppendInt(dst, secs, 10)
	if nanos != 0 {
		frac := strconv.AppendInt(nil, 1e9+nanos, 10)[1:] // nine digits
		for len(frac) > 3 && string(frac[len(frac)-3:]) == "000" {
			frac = frac[:len(frac)-3]
		}
		dst = append(append(dst, '.'), frac...)
	}
	return append(dst, 's', '"'), nil
}

// anyMessage prints an Any as protojson does, "@type" first and then the
// fields of the packed message, from the cache when it was printed before
// at the same depth.
func (e *jsonEncoder) anyMessage(dst []byte, m protoreflect.Message, depth int) ([]byte, error) {
	if a, ok := m.Interface().(*anypb.Any); ok {
		return e.anyValue(dst, a.GetTypeUrl(), a.GetValue(), a, depth)
	}
	fds := m.Descriptor().Fields()
	return e.anyValue(dst, m.Get(fds.ByNumber(1)).String(), m.Get(fds.ByNumber(2)).Bytes(), nil, depth)
}

// anyValue is anyMessage for the Any a (nil when it is not an *anypb.Any)
// holding value of typeURL.
func (e *jsonEncoder) anyValue(dst []byte, typeURL string, value []byte, a *anypb.Any, depth int) ([]byte, error) {
	if typeURL == "" {
		return dst, errFallback // protojson's empty-Any and error cases
	}
	cacheable := len(value) <= maxCachedAny
	var keyBuf [maxCachedAny + 256]byte // the key is built here, not on the heap
	var key []byte
	if cacheable {
		key = anyKey(keyBuf[:0], typeURL, value)
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
		if known = e.decoded.get(a); known == nil {
			known = e.unpacked.Get(a)
			if e.drop && known != nil {
				e.unpacked.Forget(a) // printed once
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

// anyKey appends the identity of a packed message, its type and bytes.
func anyKey(dst []byte, typeURL string, value []byte) []byte {
	dst = append(dst, typeURL...)
	dst = append(dst, 0)
	return append(dst, value...)
}

// anyCache maps packed messages (anyKey) to their printed JSON. Lookups,
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
func (e *jsonEncoder) packed(dst []byte, typeURL string, value []byte, depth int, known proto.Message) ([]byte, error) {
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
	if e.validate {
		if err := validateOne(inner.Interface()); err != nil {
			return dst, &invalidError{err}
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

// appendJSONString quotes s as protojson does: only quotes, backslashes and
// control characters are escaped, and invalid UTF-8 is an error.
func appendJSONString(dst []byte, s string) ([]byte, error) {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				return dst, errFallback
			}
			i += n
			continue
		}
		if c >= ' ' && c != '"' && c != '\\' {
			i++
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = appendEscaped(dst, c)
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"'), nil
}

func appendEscaped(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\b':
		return append(dst, `\b`...)
	case '\f':
		return append(dst, `\f`...)
	case '\n':
		return append(dst, `\n`...)
	case '\r':
		return append(dst, `\r`...)
	case '\t':
		return append(dst, `\t`...)
	}
	const hex = "0123456789abcdef"
	return append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
}

// appendJSONFloat prints a float as protojson does: the shortest
// representation, in exponent form only for very small or large values,
// and the special values as strings.
func appendJSONFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(dst, `"-Infinity"`...)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' {
		// "1e-07" -> "1e-7", as JavaScript prints it.
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}
