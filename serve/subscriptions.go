package serve

// One copy of each subscription, whatever the number of clients.
//
// go-control-plane keeps, for each stream and type, the set of resource
// names the client subscribes to, and each linear cache indexes every watch
// under each of its names. An Envoy at 1,000 HTTPProxies subscribes to
// 3,000 names (a route table, load assignment and secret per HTTPProxy),
// so these two cost 300 KB per client, for sets that are all the same: an
// Envoy subscribes to exactly the route tables, load assignments and
// secrets its listeners and clusters name, which are the ones served.
//
// So when a request of a named type subscribes to every name served of it,
// the request callback rewrites it before go-control-plane reads it: a
// state-of-the-world request then names only "*" and a delta one nothing,
// which go-control-plane records in a map of at most one entry. The cache
// wrapper below takes the request back, by its pointer, and hands the
// linear cache a subscription to the set of served names held once by the
// snapshot (nameIndex), shared by every such client. That subscription
// tells the linear cache it is a wildcard one while the cache holds no
// name outside it (the cache's answers are then the same: see IsWildcard),
// so that the watch is filed once rather than under each of its names.
//
// What go-control-plane did with the names that were taken away is done
// here: a state-of-the-world request forgets the versions sent of names it
// no longer asks for, and a delta unsubscription forgets that name's. A
// delta client's subscription is kept here, as go-control-plane would keep
// it: changed by each request's subscriptions and unsubscriptions, and
// shared whenever it is every served name. A request this does not model
// (wildcard, or a first delta request that names nothing) is left to
// go-control-plane, and a delta stream that asks for a wildcard later is
// handed back to it with its whole subscription.

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	discoveryv3 "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	cachev3 "github.com/envoyproxy/go-control-plane/pkg/cache/v3"
)

// wildcard is the name that subscribes to every resource of a type.
const wildcard = "*"

// nameSet is a set of resource names, never modified once made.
type nameSet struct {
	names map[string]struct{}
}

// subscriptions holds the requests rewritten until their cache takes them,
// and what go-control-plane no longer keeps of delta subscriptions.
type subscriptions struct {
	// served is the set of a type being served, nil before the first
	// reload (Server.servedSet).
	served func(typeURL string) *typeSet

	mu    sync.Mutex
	sotw  map[*discoveryv3.DiscoveryRequest]*nameSet
	delta map[*discoveryv3.DeltaDiscoveryRequest]rewrittenDelta
	// streams holds, by stream and type URL, what a stream's requests
	// left here.
	streams map[streamKey]map[string]*streamSubscription
}

// rewrittenDelta is a rewritten delta request: the subscription after it, and
// the names it unsubscribed from.
type rewrittenDelta struct {
	set          *nameSet
	unsubscribed []string
	// first is true for a stream's first request of the type, which the
	// linear cache answers even when empty if the watch is a wildcard one.
	first bool
}

// streamSubscription is one stream's subscription to one type.
type streamSubscription struct {
	// pending is the request last rewritten, until its cache takes it;
	// go-control-plane drops a state-of-the-world request with a stale
	// nonce without asking the cache.
	pending any
	// Delta only: whether a request was seen, whether go-control-plane
	// keeps the subscription itself, and the subscription otherwise.
	started, own bool
	set          *nameSet
}

func newSubscriptions(served func(string) *typeSet) *subscriptions {
	return &subscriptions{served: served,
		sotw:    map[*discoveryv3.DiscoveryRequest]*nameSet{},
		delta:   map[*discoveryv3.DeltaDiscoveryRequest]rewrittenDelta{},
		streams: map[streamKey]map[string]*streamSubscription{}}
}

// of returns key's subscription to typeURL, forgetting the request it left
// pending. Called with s.mu held.
func (s *subscriptions) of(key streamKey, typeURL string) *streamSubscription {
	byType := s.streams[key]
	if byType == nil {
		byType = map[string]*streamSubscription{}
		s.streams[key] = byType
	}
	sub := byType[typeURL]
	if sub == nil {
		sub = &streamSubscription{}
		byType[typeURL] = sub
	}
	s.forget(sub)
	return sub
}

// forget drops sub's pending request. Called with s.mu held.
func (s *subscriptions) forget(sub *streamSubscription) {
	switch r := sub.pending.(type) {
	case *discoveryv3.DiscoveryRequest:
		delete(s.sotw, r)
	case *discoveryv3.DeltaDiscoveryRequest:
		delete(s.delta, r)
	}
	sub.pending = nil
}

// closed forgets a stream.
func (s *subscriptions) closed(key streamKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sub := range s.streams[key] {
		s.forget(sub)
	}
	delete(s.streams, key)
}

// sotwRequest interns r's names, and rewrites r when they are every name
// served of a named type.
func (s *subscriptions) sotwRequest(id int64, r *discoveryv3.DiscoveryRequest) {
	set := s.intern(r.GetTypeUrl(), r.GetResourceNames())
	if !namedTypes[r.GetTypeUrl()] {
		return
	}
	key := streamKey{"sotw", id}
	s.mu.Lock()
	defer s.mu.Unlock()
	if set == nil {
		// Nothing kept for a stream that was never rewritten: an Envoy
		// bootstrapped by Contour opens thousands of one-name streams.
		if sub := s.streams[key][r.GetTypeUrl()]; sub != nil {
			s.forget(sub)
		}
		return
	}
	sub := s.of(key, r.GetTypeUrl())
	// An explicit wildcard: go-control-plane then keeps the versions
	// sent of names no longer asked for, which takeSotw forgets.
	r.ResourceNames = []string{wildcard}
	s.sotw[r] = set
	sub.pending = r
}

// intern replaces names with the served snapshot's copies, and returns the
// shared set of them when they are every served name of typeURL.
func (s *subscriptions) intern(typeURL string, names []string) *nameSet {
	set := s.served(typeURL)
	if set == nil || len(names) == 0 {
		return nil
	}
	return set.index.intern(set.names, names)
}

// deltaRequest interns r's names and, for a named type, keeps the stream's
// subscription here and takes the names out of r (see above).
func (s *subscriptions) deltaRequest(id int64, r *discoveryv3.DeltaDiscoveryRequest) {
	typeURL := r.GetTypeUrl()
	s.intern(typeURL, r.GetResourceNamesSubscribe())
	s.intern(typeURL, r.GetResourceNamesUnsubscribe())
	if !namedTypes[typeURL] {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sub := s.of(streamKey{"delta", id}, typeURL)
	first := !sub.started
	sub.started = true
	subscribe, unsubscribe := r.GetResourceNamesSubscribe(), r.GetResourceNamesUnsubscribe()
	switch {
	case first:
		// A first request naming nothing is go-control-plane's legacy
		// wildcard.
		if len(subscribe) == 0 || len(unsubscribe) != 0 || slices.Contains(subscribe, wildcard) {
			return
		}
		sub.own = true
	case !sub.own:
		return
	case slices.Contains(subscribe, wildcard):
		s.handBack(sub, r)
		return
	}
	// Unsubscribing from a wildcard never subscribed to changes
	// nothing.
	unsubscribe = slices.DeleteFunc(slices.Clone(unsubscribe), func(n string) bool { return n == wildcard })
	if first || len(subscribe) > 0 || len(unsubscribe) > 0 {
		sub.set = s.changed(typeURL, sub.set, subscribe, unsubscribe)
	}
	r.ResourceNamesSubscribe, r.ResourceNamesUnsubscribe = nil, nil
	s.delta[r] = rewrittenDelta{set: sub.set, unsubscribed: unsubscribe, first: first}
	sub.pending = r
}

// changed is set with subscribe added and unsubscribe taken away, shared
// when it is every served name.
func (s *subscriptions) changed(typeURL string, set *nameSet, subscribe, unsubscribe []string) *nameSet {
	names := map[string]struct{}{}
	if set != nil {
		names = maps.Clone(set.names)
	}
	for _, n := range subscribe {
		names[n] = struct{}{}
	}
	for _, n := range unsubscribe {
		delete(names, n)
	}
	out := &nameSet{names: names}
	if served := s.served(typeURL); served != nil {
		return served.index.shared(served.names, out)
	}
	return out
}

// handBack gives go-control-plane a delta stream's whole subscription
// again, in r, which subscribes to the wildcard, for it to keep from now
// on. go-control-plane holds that stream's subscription as one that no
// request changed (every request it saw named nothing): r now subscribes
// to every name before its own, and then unsubscribes from its own, as
// go-control-plane would have had it kept the names.
func (s *subscriptions) handBack(sub *streamSubscription, r *discoveryv3.DeltaDiscoveryRequest) {
	names := slices.Sorted(maps.Keys(sub.set.names))
	r.ResourceNamesSubscribe = append(names, r.GetResourceNamesSubscribe()...)
	sub.own, sub.set = false, nil
}

// takeSotw returns the shared set r was rewritten to, and forgets r.
func (s *subscriptions) takeSotw(r *discoveryv3.DiscoveryRequest) (*nameSet, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	set, ok := s.sotw[r]
	delete(s.sotw, r)
	return set, ok
}

// takeDelta returns what r was rewritten from, and forgets r.
func (s *subscriptions) takeDelta(r *discoveryv3.DeltaDiscoveryRequest) (rewrittenDelta, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.delta[r]
	delete(s.delta, r)
	return d, ok
}

// subscriptionCache is a linear cache handed state-of-the-world requests
// without their resource names, which it does not read (names.go), and the
// subscriptions of rewritten requests.
type subscriptionCache struct {
	*cachev3.LinearCache
	subs *subscriptions
	// covering is a set holding every name in the linear cache, nil
	// while its names change (xdsCache.publish).
	covering *atomic.Pointer[nameSet]
}

func (c subscriptionCache) CreateWatch(r *cachev3.Request, sub cachev3.Subscription, ch chan cachev3.Response) (func(), error) {
	if set, ok := c.subs.takeSotw(r); ok {
		// What go-control-plane does when a request no longer asks for
		// a name: it forgets the version sent, so that the resource is
		// sent again if asked for again.
		returned := sub.ReturnedResources()
		for n := range returned {
			if _, ok := set.names[n]; !ok {
				delete(returned, n)
			}
		}
		sub = sharedSubscription{returned: returned, set: set, covering: c.covering}
	}
	return c.LinearCache.CreateWatch(withoutNames(r), sub, ch)
}

func (c subscriptionCache) CreateDeltaWatch(r *cachev3.DeltaRequest, sub cachev3.Subscription, ch chan cachev3.DeltaResponse) (func(), error) {
	if d, ok := c.subs.takeDelta(r); ok {
		returned := sub.ReturnedResources()
		for _, n := range d.unsubscribed {
			delete(returned, n)
		}
		// The linear cache answers a wildcard watch's first request
		// even when it has nothing to send; a named one it does not.
		sub = sharedSubscription{returned: returned, set: d.set, covering: c.covering, named: d.first}
	}
	return c.LinearCache.CreateDeltaWatch(r, sub, ch)
}

// sharedSubscription is a subscription to a set of names held here, with
// the versions go-control-plane recorded as sent.
type sharedSubscription struct {
	returned map[string]string
	set      *nameSet
	covering *atomic.Pointer[nameSet]
	named    bool
}

func (s sharedSubscription) ReturnedResources() map[string]string     { return s.returned }
func (s sharedSubscription) SubscribedResources() map[string]struct{} { return s.set.names }

// IsWildcard reports whether the subscription names every resource the
// linear cache holds. The linear cache then answers it as it would the
// named one: a wildcard watch gets every resource of the cache whose
// version it does not know and loses every known one the cache no longer
// has, which for a subscription holding all of the cache's are the ones a
// named watch gets and loses. Asked again at each answer, as the cache's
// names change: a watch filed as a wildcard one while they did is answered
// as a named one, and gets nothing it did not ask for.
func (s sharedSubscription) IsWildcard() bool {
	return !s.named && s.covering.Load() == s.set
}
