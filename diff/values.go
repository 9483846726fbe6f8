package diff

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// protoJSON prints proto field names, as render -o json does.
var protoJSON = protojson.MarshalOptions{UseProtoNames: true}

// isLeafMessage says whether messages of type d are compared and printed
// whole: google.protobuf's types (Duration, wrappers, Struct) read better
// as "5s" than as their seconds and nanos.
func isLeafMessage(d protoreflect.MessageDescriptor) bool {
	return d.FullName() != anyName && strings.HasPrefix(string(d.FullName()), "google.protobuf.")
}

// formatMessage prints m as compact JSON, or "" when m is not set.
// protojson varies its spacing on purpose, so the output is compacted
// again to be the same in every build.
func formatMessage(m protoreflect.Message) string {
	if !m.IsValid() {
		return ""
	}
	b, err := protoJSON.Marshal(m.Interface())
	if err != nil {
		return fmt.Sprintf("<%s: %v>", m.Descriptor().FullName(), err)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return string(b)
	}
	return buf.String()
}

// formatScalar prints a singular non-message field of m. A field without
// presence (a proto3 scalar) prints its default when unset, so 5 → 0 reads
// as such rather than as a removal.
func formatScalar(m protoreflect.Message, fd protoreflect.FieldDescriptor) string {
	if fd.HasPresence() && !m.Has(fd) {
		return ""
	}
	return formatValue(fd, m.Get(fd))
}

// formatValue prints one value of field fd (a list item or map value when
// fd is a list or map).
func formatValue(fd protoreflect.FieldDescriptor, v protoreflect.Value) string {
	if fd.IsMap() {
		fd = fd.MapValue()
	}
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return formatMessage(v.Message())
	case protoreflect.StringKind:
		b, _ := json.Marshal(v.String())
		return string(b)
	case protoreflect.BytesKind:
		// Bytes are certificates, keys (already redacted) or opaque data:
		// never printed, only told apart.
		sum := sha256.Sum256(v.Bytes())
		return fmt.Sprintf("<%d bytes sha256:%s>", len(v.Bytes()), hex.EncodeToString(sum[:6]))
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			return string(ev.Name())
		}
		return fmt.Sprint(v.Enum())
	default:
		return fmt.Sprint(v.Interface())
	}
}

// formatItems prints every item of a list.
func formatItems(fd protoreflect.FieldDescriptor, l protoreflect.List) []string {
	out := make([]string, l.Len())
	for i := range out {
		out[i] = formatValue(fd, l.Get(i))
	}
	return out
}
