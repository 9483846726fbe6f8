package serve

// One copy of each resource name, whatever the number of clients.
//
// Every state-of-the-world request names again every resource the client
// subscribes to (an Envoy at 1,000 HTTPProxies names 3,000: a route table,
// load assignment and secret per proxy), and go-control-plane keeps, per
// client and type, the last request and maps keyed by the names in it.
// Decoded from each request, those were new strings for every client. The
// request callbacks replace them with the served snapshot's own strings,
// so that all clients' maps share one copy, and the linear caches are
// handed requests without their names, which they do not read (they go by
// the subscription go-control-plane derives from them before).

import (
	"slices"

	discoveryv3 "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	cachev3 "github.com/envoyproxy/go-control-plane/pkg/cache/v3"
)

// internNames replaces each of names that the snapshot serves with the
// snapshot's copy of it. The snapshot lists a type's names in order
// (typeSet.sorted), so each is found by binary search, without an index of
// its own.
func (s *Server) internNames(typeURL string, names []string) {
	p := s.current.Load()
	if p == nil || len(names) == 0 {
		return
	}
	set := p.snap.set(typeURL)
	if set == nil || !set.sorted {
		return
	}
	for i, n := range names {
		if j, ok := slices.BinarySearch(set.names, n); ok {
			names[i] = set.names[j]
		}
	}
}

// internVersions is internNames for the keys of a delta client's initial
// resource versions.
func (s *Server) internVersions(typeURL string, versions map[string]string) map[string]string {
	if len(versions) == 0 {
		return versions
	}
	names := make([]string, 0, len(versions))
	for n := range versions {
		names = append(names, n)
	}
	s.internNames(typeURL, names)
	out := make(map[string]string, len(versions))
	for _, n := range names {
		out[n] = versions[n]
	}
	return out
}

// namelessRequests is a linear cache handed state-of-the-world requests
// without their resource names (see above).
type namelessRequests struct {
	*cachev3.LinearCache
}

func (c namelessRequests) CreateWatch(r *cachev3.Request, sub cachev3.Subscription, ch chan cachev3.Response) (func(), error) {
	return c.LinearCache.CreateWatch(withoutNames(r), sub, ch)
}

// withoutNames is a shallow copy of r without its resource names.
func withoutNames(r *discoveryv3.DiscoveryRequest) *discoveryv3.DiscoveryRequest {
	return &discoveryv3.DiscoveryRequest{
		VersionInfo:   r.GetVersionInfo(),
		Node:          r.GetNode(),
		TypeUrl:       r.GetTypeUrl(),
		ResponseNonce: r.GetResponseNonce(),
		ErrorDetail:   r.GetErrorDetail(),
	}
}
