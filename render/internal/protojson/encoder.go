package protojson

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
	"strconv"
	"strings"
	"unsafe"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/contourc/contourc/render/internal/jsontext"
	"github.com/contourc/contourc/render/internal/presence"
	"github.com/contourc/contourc/render/internal/protowalk"
	"github.com/contourc/contourc/translate"
)

// ProtoNames prints proto field names (snake_case), as Envoy's docs and
// config_dump do, rather than protojson's lowerCamelCase default.
var ProtoNames = protojson.MarshalOptions{UseProtoNames: true}

// errFallback sends a message to protojson: something this encoder does not
// print the way protojson does, or an error protojson should word.
var errFallback = errors.New("render: not handled by the fast JSON encoder")

// Encoder prints messages as protojson, compact or, when indent is
// set, laid out as json.Indent lays out with two spaces and prefix. It is
// safe for concurrent use.
//
// Printing the layout directly, rather than re-indenting compact JSON,
// saves a pass and a copy of every byte, and lets the one huge list of a
// resource (the HTTPS listener's filter chains, the HTTP route table's
// virtual hosts) be printed in pieces on every CPU.
type Encoder struct {
	indent bool
	prefix string
	// Validate runs Envoy's validation rules on each resource and on each
	// packed config as it is unpacked for printing, which saves Validate's
	// unpacking them all a second time.
	Validate bool
	anys     *anyCache // by protowalk.AnyKey, and depth when indenting; nil caches nothing
	// Decoded, when set, gives the contents of Anys decoded before, so
	// that they are not decoded again to be printed; unpacked those the
	// translation remembered as it packed them.
	Decoded  *protowalk.Decoded
	Unpacked *translate.Unpacked
	// Segments, on an encoder printing one resource, is passed the
	// resource's own long list piece by piece, in order, as the pieces are
	// printed, rather than joined into one buffer: for a big listener
	// that is tens of megabytes less to copy, and less to hold when the
	// pieces are written out as they come (JSONStream).
	Segments *SegmentPasser
	// Drop, on an encoder printing every resource once (JSONStreamOnce),
	// lets go of each resource once printed, and of its unpacked configs.
	Drop bool
	// shared, on an encoder one goroutine prints with (ForWorker), holds
	// the JSON of messages printed more than once.
	shared *sharedJSON
}

// ForWorker is e for one goroutine to print with.
func (e *Encoder) ForWorker() *Encoder {
	w := *e
	w.shared = newSharedJSON(sharedSlots)
	return &w
}

// Compact prints compact JSON.
func Compact() *Encoder { return &Encoder{anys: &anyCache{}} }

// InvalidError is a message that breaks Envoy's validation rules, found by
// a validating encoder.
type InvalidError struct{ err error }

func (e *InvalidError) Error() string { return e.err.Error() }
func (e *InvalidError) Unwrap() error { return e.err }

// Indented prints as json.Indent(dst, compact, prefix, "  ") would.
func Indented(prefix string) *Encoder {
	return &Encoder{indent: true, prefix: prefix, anys: &anyCache{}}
}

// Marshal appends m's JSON to dst, falling back to protojson for what this
// encoder leaves to it.
func (e *Encoder) Marshal(dst []byte, m proto.Message) ([]byte, error) {
	if e.Validate {
		if err := protowalk.ValidateSpread(m); err != nil {
			return dst, &InvalidError{err}
		}
	}
	out, err := e.message(dst, m.ProtoReflect(), 0)
	if err == nil {
		return out, nil
	}
	if _, invalid := err.(*InvalidError); invalid {
		return dst, err
	}
	// protojson unpacks nothing for validation: check what this encoder
	// did not get to.
	if e.Validate {
		if err := protowalk.ValidateDeep(m); err != nil {
			return dst, &InvalidError{err}
		}
	}
	// protojson reads Anys' bytes, which a lazily packed rewrite left
	// stale.
	m, err = e.Decoded.Packed(m)
	if err != nil {
		return dst, err
	}
	if e.Segments == nil || e.Segments.passed == 0 {
		return e.viaProtojson(dst[:len(dst):len(dst)], m, 0)
	}
	whole, err := e.viaProtojson(nil, m, 0)
	if err != nil {
		return dst, err
	}
	return e.Segments.rest(whole)
}

// viaProtojson appends protojson's output for m at depth, laid out as the
// rest: protojson varies its whitespace on purpose.
func (e *Encoder) viaProtojson(dst []byte, m proto.Message, depth int) ([]byte, error) {
	if !e.indent {
		return ProtoNames.MarshalAppend(dst, m)
	}
	js, err := ProtoNames.Marshal(m)
	if err != nil {
		return dst, err
	}
	return jsontext.AppendIndented(dst, js, e.prefix+strings.Repeat(jsontext.IndentUnit, depth)), nil
}

// member starts the next member of the object or array at depth: a comma
// unless it is the first, then, when indenting, a new line one level in.
func (e *Encoder) member(dst []byte, depth int, first bool) []byte {
	if !first {
		dst = append(dst, ',')
	}
	if e.indent {
		dst = jsontext.NewLine(dst, e.prefix, depth+1)
	}
	return dst
}

// end closes the object or array at depth with c; json.Indent puts the
// bracket of a non-empty one on a line of its own.
func (e *Encoder) end(dst []byte, depth int, c byte, empty bool) []byte {
	if e.indent && !empty {
		dst = jsontext.NewLine(dst, e.prefix, depth)
	}
	return append(dst, c)
}

// key appends an object member's name and colon.
func (e *Encoder) key(dst []byte, name string) []byte {
	dst = append(dst, '"')
	dst = append(dst, name...)
	dst = append(dst, '"', ':')
	if e.indent {
		dst = append(dst, ' ')
	}
	return dst
}

func (e *Encoder) message(dst []byte, m protoreflect.Message, depth int) ([]byte, error) {
	return e.planned(dst, presence.For(m), m, depth)
}

// planned is message for m, whose presence plan is p.
func (e *Encoder) planned(dst []byte, p *presence.Plan, m protoreflect.Message, depth int) ([]byte, error) {
	switch p.Family {
	case presence.FamilyAny:
		return e.anyMessage(dst, m, depth)
	case presence.FamilyWellKnown:
		return e.wellKnown(dst, m, depth)
	}
	dst = append(dst, '{')
	dst, n, err := e.fieldsPlanned(dst, p, m, depth, 0)
	return e.end(dst, depth, '}', n == 0), err
}

// fields appends m's populated fields in declaration order, as members of
// the object at depth that already has written members, and returns how
// many members the object then has.
func (e *Encoder) fields(dst []byte, m protoreflect.Message, depth, written int) ([]byte, int, error) {
	return e.fieldsPlanned(dst, presence.For(m), m, depth, written)
}

// fieldsPlanned is fields for m, whose presence plan is p. Message fields,
// lists of messages and the common maps are read from the struct, with
// their plans kept in p, rather than through protoreflect.
func (e *Encoder) fieldsPlanned(dst []byte, p *presence.Plan, m protoreflect.Message, depth, written int) ([]byte, int, error) {
	base := p.Base(m)
	for i := range p.Fields {
		if !p.Has(m, base, i) {
			continue
		}
		f := &p.Fields[i]
		dst = e.member(dst, depth, written == 0)
		written++
		dst = e.key(dst, f.FD.TextName())
		var err error
		switch {
		case base != nil && f.Read == presence.ReadMessageList:
			dst, err = e.sharedList(dst, p, i, *(*[]unsafe.Pointer)(unsafe.Add(base, f.Offset)), depth+1)
		case base != nil && f.Read == presence.ReadStringList:
			dst, err = e.stringList(dst, *(*[]string)(unsafe.Add(base, f.Offset)), depth+1)
		case base != nil && f.Read >= presence.ReadStringMap:
			dst, err = e.sharedMap(dst, f, unsafe.Add(base, f.Offset), depth+1)
		case f.Read == presence.ReadMessage:
			if at := p.MessagePointer(base, i); at != nil && e.shared != nil {
				dst, err = e.sharedMessage(dst, p, i, at, depth+1)
				break
			}
			sub := p.Get(m, base, i).Message()
			dst, err = e.planned(dst, p.Sub(i, sub), sub, depth+1)
		case f.FD.IsList():
			dst, err = e.list(dst, p.Get(m, base, i).List(), f.FD, depth+1)
		case f.FD.IsMap():
			dst, err = e.mapValue(dst, p.Get(m, base, i).Map(), f.FD, depth+1)
		default:
			dst, err = e.singular(dst, p.Get(m, base, i), f.FD, depth+1)
		}
		if err != nil {
			return dst, written, err
		}
	}
	return dst, written, nil
}

func (e *Encoder) singular(dst []byte, v protoreflect.Value, fd protoreflect.FieldDescriptor, depth int) ([]byte, error) {
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
