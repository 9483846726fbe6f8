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
	"strconv"
	"strings"
	"unsafe"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/contourc/contourc/render/internal/jsontext"
	"github.com/contourc/contourc/translate"
)

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
		if err := validateSpread(m); err != nil {
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
	return jsontext.AppendIndented(dst, js, e.prefix+strings.Repeat(jsontext.IndentUnit, depth)), nil
}

// member starts the next member of the object or array at depth: a comma
// unless it is the first, then, when indenting, a new line one level in.
func (e *jsonEncoder) member(dst []byte, depth int, first bool) []byte {
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
func (e *jsonEncoder) end(dst []byte, depth int, c byte, empty bool) []byte {
	if e.indent && !empty {
		dst = jsontext.NewLine(dst, e.prefix, depth)
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
