package envoy

import (
	"sync"

	"github.com/contourc/contourc/translate/config"

	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
)

// hcmPacker builds and packs HTTP connection managers that differ only in
// their RDS route table: the per-SNI filter chains of an HTTPS listener,
// 5,000 of them at 5,000 HTTPProxies, whose managers share every other
// field. Building each (its ten HTTP filters, access logs and timeouts)
// and marshalling it whole was 60 ms of a render's CPU.
//
// The first manager of a variant is built and marshalled whole. Later
// ones share its fields, every message and list of them (a message is
// never modified once built), which also lets a renderer print them once.
// A manager's encoding is its fields, each whole, in an order that
// depends on their numbers and not on their values (Go's lists the oneof
// rds after the other fields), so the first one's is cut around its rds
// field, and each later one's bytes are the part before, its own rds, and
// the part after: the bytes marshalling it whole gives.
//
// A packer belongs to one build, with one settings; it is safe for
// concurrent use. A nil packer builds and marshals every manager whole.
type hcmPacker struct {
	settings *config.Settings
	mu       sync.Mutex
	variants map[hcmVariant]*hcmTemplate
}

// hcmVariant is what, besides the route table, shapes a manager that
// has no extra filters and forwards no client certificate (the rest of
// hcmOptions), given the packer's settings.
type hcmVariant struct {
	statPrefix                   string
	secure, fallback, websockets bool
}

// hcmTemplate is a variant's first manager's fields, and its encoding cut
// where rds goes.
type hcmTemplate struct {
	fields        messageFields
	before, after []byte
}

const hcmRdsField protowire.Number = 3

func newHCMPacker(s *config.Settings) *hcmPacker {
	return &hcmPacker{settings: s, variants: map[hcmVariant]*hcmTemplate{}}
}

// manager returns the manager of httpConnectionManagerWith for o with
// the route specifier rds, and its packed form.
func (p *hcmPacker) manager(statPrefix string, o hcmOptions, rds *hcmv3.HttpConnectionManager_Rds) (*hcmv3.HttpConnectionManager, *anypb.Any) {
	whole := func() (*hcmv3.HttpConnectionManager, *anypb.Any) {
		hcm := hcmWithoutRoutes(statPrefix, o)
		hcm.RouteSpecifier = rds
		return hcm, mustAny(hcm)
	}
	if p == nil || o.settings != p.settings || len(o.extraFilters) > 0 || o.forwardClientCert != nil {
		return whole()
	}
	v := hcmVariant{statPrefix, o.secure, o.fallback, o.websockets}
	p.mu.Lock()
	t, ok := p.variants[v]
	p.mu.Unlock()
	if !ok {
		hcm, a := whole()
		if start, end, found := fieldSpan(a.Value, hcmRdsField); found {
			p.mu.Lock()
			p.variants[v] = &hcmTemplate{fields: fieldsOf(hcm), before: a.Value[:start], after: a.Value[end:]}
			p.mu.Unlock()
		}
		return hcm, a
	}
	hcm := &hcmv3.HttpConnectionManager{}
	t.fields.setIn(hcm)
	hcm.RouteSpecifier = rds
	ownRds, err := proto.MarshalOptions{Deterministic: true}.Marshal(rds.Rds)
	if err != nil {
		panic(err)
	}
	b := make([]byte, 0, len(t.before)+len(t.after)+len(ownRds)+protowire.SizeTag(hcmRdsField)+protowire.SizeVarint(uint64(len(ownRds))))
	b = append(b, t.before...)
	b = protowire.AppendTag(b, hcmRdsField, protowire.BytesType)
	b = protowire.AppendBytes(b, ownRds)
	b = append(b, t.after...)
	return hcm, &anypb.Any{TypeUrl: hcmTypeURL, Value: b}
}

var hcmTypeURL = "type.googleapis.com/" + string((&hcmv3.HttpConnectionManager{}).ProtoReflect().Descriptor().FullName())

// messageFields are the populated fields of a message and their values.
type messageFields []fieldValue

type fieldValue struct {
	fd protoreflect.FieldDescriptor
	v  protoreflect.Value
}

// fieldsOf returns the populated fields of m.
func fieldsOf(m proto.Message) messageFields {
	var fields messageFields
	m.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		fields = append(fields, fieldValue{fd, v})
		return true
	})
	return fields
}

// setIn sets the fields in m, a message of their type: the same messages,
// and lists sharing their arrays.
func (fields messageFields) setIn(m proto.Message) {
	r := m.ProtoReflect()
	for _, f := range fields {
		r.Set(f.fd, f.v)
	}
}

// fieldSpan returns where field n of the encoded message b starts and
// ends, when b holds it once, as a singular message field.
func fieldSpan(b []byte, n protowire.Number) (start, end int, found bool) {
	for at := 0; at < len(b); {
		num, typ, tagLen := protowire.ConsumeTag(b[at:])
		if tagLen < 0 {
			return 0, 0, false
		}
		valueLen := protowire.ConsumeFieldValue(num, typ, b[at+tagLen:])
		if valueLen < 0 {
			return 0, 0, false
		}
		if num == n {
			if found {
				return 0, 0, false // repeated: not one span
			}
			start, end, found = at, at+tagLen+valueLen, true
		}
		at += tagLen + valueLen
	}
	return start, end, found
}
