package translate

import (
	"sync"

	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// hcmPacker packs HTTP connection managers that differ only in their RDS
// route table: the per-SNI filter chains of an HTTPS listener, 5,000 of
// them at 5,000 HTTPProxies, whose managers share every other field.
// Marshalling each whole (its ten HTTP filters, access logs and
// timeouts) was 60 ms of a render's CPU.
//
// A manager's encoding is its fields, each whole, in an order that
// depends on their numbers and not on their values (Go's lists the oneof
// rds after the other fields). So the first manager of a variant is
// marshalled whole and cut around its rds field, and each later one's
// bytes are the part before, its own rds, and the part after: the bytes
// marshalling it whole gives.
//
// A packer belongs to one build, with one settings; it is safe for
// concurrent use.
type hcmPacker struct {
	settings *settings
	mu       sync.Mutex
	variants map[hcmVariant]*hcmSplit
}

// hcmVariant is what, besides the route table, shapes a manager that
// has no extra filters and forwards no client certificate (the rest of
// hcmOptions), given the packer's settings.
type hcmVariant struct {
	statPrefix                   string
	secure, fallback, websockets bool
}

// hcmSplit is a variant's encoding without rds, cut where rds goes.
type hcmSplit struct{ before, after []byte }

const hcmRdsField protowire.Number = 3

func newHCMPacker(s *settings) *hcmPacker {
	return &hcmPacker{settings: s, variants: map[hcmVariant]*hcmSplit{}}
}

// pack returns hcm, built by httpConnectionManagerWith with o, packed.
func (p *hcmPacker) pack(hcm *hcmv3.HttpConnectionManager, o hcmOptions) *anypb.Any {
	rds, ok := hcm.RouteSpecifier.(*hcmv3.HttpConnectionManager_Rds)
	if p == nil || !ok || o.settings != p.settings || len(o.extraFilters) > 0 || o.forwardClientCert != nil {
		return mustAny(hcm)
	}
	v := hcmVariant{hcm.StatPrefix, o.secure, o.fallback, o.websockets}
	p.mu.Lock()
	split, ok := p.variants[v]
	p.mu.Unlock()
	if !ok {
		a := mustAny(hcm)
		if start, end, found := fieldSpan(a.Value, hcmRdsField); found {
			p.mu.Lock()
			p.variants[v] = &hcmSplit{before: a.Value[:start], after: a.Value[end:]}
			p.mu.Unlock()
		}
		return a
	}
	ownRds, err := proto.MarshalOptions{Deterministic: true}.Marshal(rds.Rds)
	if err != nil {
		panic(err)
	}
	b := make([]byte, 0, len(split.before)+len(split.after)+len(ownRds)+protowire.SizeTag(hcmRdsField)+protowire.SizeVarint(uint64(len(ownRds))))
	b = append(b, split.before...)
	b = protowire.AppendTag(b, hcmRdsField, protowire.BytesType)
	b = protowire.AppendBytes(b, ownRds)
	b = append(b, split.after...)
	return &anypb.Any{TypeUrl: hcmTypeURL, Value: b}
}

var hcmTypeURL = "type.googleapis.com/" + string((&hcmv3.HttpConnectionManager{}).ProtoReflect().Descriptor().FullName())

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
