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
	"sync"

	discoveryv3 "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	cachev3 "github.com/envoyproxy/go-control-plane/pkg/cache/v3"
)

// internNames replaces each of names that the snapshot serves with the
// snapshot's copy of it.
func (s *Server) internNames(typeURL string, names []string) {
	p := s.current.Load()
	if p == nil || len(names) == 0 {
		return
	}
	set := p.snap.set(typeURL)
	if set == nil {
		return
	}
	index := set.index.of(set.names)
	for i, n := range names {
		if c, ok := index[n]; ok {
			names[i] = c
		}
	}
}

// nameIndex maps each name of a type set to the set's own string. It is
// built by the first request that needs it rather than by the reload: a
// reload changing one route table would otherwise index all 5,000 names
// again before any client hears of it. A map, not a search of the sorted
// names: every state-of-the-world acknowledgement names everything again
// (5,000 route tables per client per change), and a binary search of each
// was several times go-control-plane's own work on the request.
type nameIndex struct {
	once  sync.Once
	names map[string]string
}

func (x *nameIndex) of(names []string) map[string]string {
	if x == nil {
		return nil
	}
	x.once.Do(func() {
		x.names = make(map[string]string, len(names))
		for _, n := range names {
			x.names[n] = n
		}
	})
	return x.names
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
