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
// route table whose virtual hosts are stand-ins, empty messages of their
// type carrying the virtual host's encoding as their unknown fields.
// Marshalling a stand-in copies its encoding, so the route table marshals
// to the very bytes of its canonical encoding, at the cost of a copy. A
// stand-in is made once per virtual host and kept while it is served:
// concatenating the encodings into one buffer instead cost 9 MB and 6 ms
// at every change. The resources serve validates, hashes and shows on
// /debug/xds are the real ones.

import (
	"crypto/sha256"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"github.com/envoyproxy/go-control-plane/pkg/cache/types"
	"google.golang.org/protobuf/proto"
)

func isRouteTable(m proto.Message) bool {
	_, ok := m.(*routev3.RouteConfiguration)
	return ok
}

// encodeAndHash is hashMarshalled, returning a stand-in for m too.
func encodeAndHash(m proto.Message) (proto.Message, [sha256.Size]byte, error) {
	b, err := deterministic.Marshal(m)
	if err != nil {
		return nil, [sha256.Size]byte{}, err
	}
	standIn := m.ProtoReflect().New()
	standIn.SetUnknown(b)
	return standIn.Interface(), sha256.Sum256(b), nil
}

// servedItems returns items as the xDS cache is given them: route tables
// with a long list of virtual hosts, all of them with a stand-in in wire,
// in their wire form, taken from prev when it served the very same route
// table; the other items as they are.
func servedItems(items []types.Resource, wire map[proto.Message]proto.Message, prev *typeSet) []types.Resource {
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

// wireForm is m in its wire form, nil when m is not a route table with a
// long list of virtual hosts or not all of them have a stand-in in wire.
// Typed, not reflected: appending 5,000 stand-ins through protoreflect was
// most of making the wire form.
func wireForm(m proto.Message, wire map[proto.Message]proto.Message) proto.Message {
	rc, ok := m.(*routev3.RouteConfiguration)
	if !ok || len(rc.GetVirtualHosts()) < minSplitHash {
		return nil
	}
	standIns := make([]*routev3.VirtualHost, len(rc.VirtualHosts))
	for i, vh := range rc.VirtualHosts {
		standIn, ok := wire[vh].(*routev3.VirtualHost)
		if !ok {
			return nil
		}
		standIns[i] = standIn
	}
	out := withoutField(rc.ProtoReflect(), virtualHostsField).Interface().(*routev3.RouteConfiguration)
	out.VirtualHosts = standIns
	return out
}

// virtualHostsField is a route table's list of virtual hosts.
var virtualHostsField = (&routev3.RouteConfiguration{}).ProtoReflect().Descriptor().Fields().ByName("virtual_hosts")
