package serve

// Route tables as the xDS cache is given them.
//
// go-control-plane marshals a resource, deterministically and on one CPU,
// the first time it answers with it. ingress_http holds a virtual host per
// HTTPProxy (9 MB at 5,000 of them), so each change to it cost 150-330 ms
// between the reload's end and the first client's receipt, though the
// reload had just encoded (to hash) every virtual host that changed, and
// the others were encoded already. A route table with a long list of
// virtual hosts is handed to the cache in a wire form instead: the same
// route table without its virtual hosts, which ride along as the
// message's unknown fields, pre-encoded under their field number.
// Marshalling it copies them. Protobuf parsers accept a message's fields
// in any order, so Envoy reads the very same route table; it is only the
// bytes that differ from the canonical encoding, in field order. The
// resources serve validates, hashes and shows on /debug/xds are the real
// ones.

import (
	"crypto/sha256"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"github.com/envoyproxy/go-control-plane/pkg/cache/types"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

func isRouteTable(m proto.Message) bool {
	_, ok := m.(*routev3.RouteConfiguration)
	return ok
}

// encodeAndHash is hashMarshalled keeping the encoding.
func encodeAndHash(m proto.Message) ([]byte, [sha256.Size]byte, error) {
	b, err := deterministic.Marshal(m)
	if err != nil {
		return nil, [sha256.Size]byte{}, err
	}
	return b, sha256.Sum256(b), nil
}

// servedItems returns items as the xDS cache is given them: route tables
// with a long list of virtual hosts, all of them encoded in wire, in
// their wire form, taken from prev when it served the very same route
// table; the other items as they are.
func servedItems(items []types.Resource, wire map[proto.Message][]byte, prev *typeSet) []types.Resource {
	var before map[types.Resource]types.Resource
	if prev != nil {
		before = make(map[types.Resource]types.Resource, len(prev.items))
		for i, it := range prev.items {
			before[it] = prev.served[i]
		}
	}
	out := make([]types.Resource, len(items))
	for i, it := range items {
		out[i] = it
		if !isRouteTable(it) {
			continue
		}
		if w, ok := before[it]; ok {
			out[i] = w
		} else if w := wireForm(it, wire); w != nil {
			out[i] = w
		}
	}
	return out
}

// wireForm is m in its wire form, nil when m has no long list or not all
// of its elements are encoded in wire.
func wireForm(m proto.Message, wire map[proto.Message][]byte) proto.Message {
	rm := m.ProtoReflect()
	long := longList(rm)
	if long == nil {
		return nil
	}
	list := rm.Get(long).List()
	// Each element looked up once: for a table of 5,000 virtual hosts
	// the lookups were most of the cost, next to the copy.
	encoded := make([][]byte, list.Len())
	size := 0
	for i := range encoded {
		b, ok := wire[list.Get(i).Message().Interface()]
		if !ok {
			return nil
		}
		encoded[i] = b
		size += len(b) + 2*protowire.SizeVarint(uint64(len(b)))
	}
	raw := make([]byte, 0, size)
	for _, b := range encoded {
		raw = protowire.AppendTag(raw, long.Number(), protowire.BytesType)
		raw = protowire.AppendBytes(raw, b)
	}
	out := withoutField(rm, long)
	out.SetUnknown(append(protoreflect.RawFields(raw), rm.GetUnknown()...))
	return out.Interface()
}
