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
)

// internNames replaces each of names that the snapshot serves with the
// snapshot's copy of it.
func (s *Server) internNames(typeURL string, names []string) {
	if set := s.servedSet(typeURL); set != nil && len(names) > 0 {
		set.index.intern(set.names, names)
	}
}

// servedSet is the set of typeURL being served, nil before the first
// reload.
func (s *Server) servedSet(typeURL string) *typeSet {
	p := s.current.Load()
	if p == nil {
		return nil
	}
	return p.snap.set(typeURL)
}

// nameIndex maps each name of a type set to its position in the set's
// names, and holds the names as the one subscription every client asking
// for all of them shares (subscriptions.go). It is built by the first
// request that needs it rather than by the reload: a reload changing one
// route table would otherwise index all 5,000 names again before any client
// hears of it. A map, not a search of the sorted names: every
// state-of-the-world acknowledgement names everything again (5,000 route
// tables per client per change), and a binary search of each was several
// times go-control-plane's own work on the request. A snapshot whose names
// are those of the one before keeps its index, so that clients subscribed
// to all of them before still are.
type nameIndex struct {
	once sync.Once
	pos  map[string]int
	all  nameSet
}

func (x *nameIndex) build(names []string) {
	x.once.Do(func() {
		x.pos = make(map[string]int, len(names))
		x.all.names = make(map[string]struct{}, len(names))
		for i, n := range names {
			x.pos[n] = i
			x.all.names[n] = struct{}{}
		}
	})
}

// intern replaces each of req that is one of names with the copy in names,
// and returns the shared set of names when req holds every one of them.
func (x *nameIndex) intern(names, req []string) *nameSet {
	if x == nil {
		return nil
	}
	x.build(names)
	seen := make([]uint64, (len(names)+63)/64)
	distinct, all := 0, true
	for i, n := range req {
		p, ok := x.pos[n]
		if !ok {
			all = false
			continue
		}
		req[i] = names[p]
		if seen[p/64]&(1<<(p%64)) == 0 {
			seen[p/64] |= 1 << (p % 64)
			distinct++
		}
	}
	if !all || distinct != len(names) {
		return nil
	}
	return &x.all
}

// shared returns the shared set of names when set holds exactly them,
// else set.
func (x *nameIndex) shared(names []string, set *nameSet) *nameSet {
	if x == nil || set == &x.all || len(set.names) != len(names) {
		return set
	}
	x.build(names)
	for n := range set.names {
		if _, ok := x.pos[n]; !ok {
			return set
		}
	}
	return &x.all
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
