package protojson

// The fast JSON encoder's well-known types (google.protobuf.*): the
// common ones (wrappers, Duration, Struct and Value) printed here in their
// special JSON forms, the others left to protojson.

import (
	"math"
	"strconv"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// wellKnown prints the well-known types Envoy's configuration is full of
// (durations, wrappers, Structs) in their special JSON forms, and leaves the
// rare others to protojson.
func (e *Encoder) wellKnown(dst []byte, m protoreflect.Message, depth int) ([]byte, error) {
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
func (e *Encoder) commonWellKnown(dst []byte, m protoreflect.Message, depth int) (_ []byte, ok bool, _ error) {
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
func (e *Encoder) structFields(dst []byte, fields map[string]*structpb.Value, depth int) ([]byte, error) {
	return stringKeyed(e, dst, fields, depth, func(dst []byte, v *structpb.Value) ([]byte, error) {
		if v == nil {
			return dst, errFallback // protojson's error
		}
		return e.structValue(dst, v, depth+1)
	})
}

// structValue prints a google.protobuf.Value: its kind's value alone.
func (e *Encoder) structValue(dst []byte, v *structpb.Value, depth int) ([]byte, error) {
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
