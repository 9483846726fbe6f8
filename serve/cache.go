package serve

// The xDS caches the gRPC services answer from: a go-control-plane linear
// cache for each served type, behind a mux that picks by type URL.
//
// Contour uses a linear cache for endpoints only, and a snapshot cache for
// the rest. Why linear caches for everything: the snapshot cache answers
// every open state-of-the-world watch of a type whose version changed with
// every resource the watch names. An Envoy bootstrapped by Contour opens a
// stream per cluster, route configuration and secret, so one changed
// Service would wake every EDS stream of every Envoy; over ADS, one changed
// HTTPProxy would resend all route configurations (at 5,000 HTTPProxies,
// megabytes per Envoy per change). The linear cache versions each resource
// and wakes only the watches that asked for one that changed, sending only
// those; Envoy applies a partial response of these types to just the
// resources in it. Listeners and clusters are different: clients subscribe
// to all of them and every response must carry all of them, which the
// linear cache does for these types too. What decides for it there is
// memory: the snapshot cache wraps, and so encodes again, every resource of
// every response it makes, one per client (5 MB per client at 1,000
// HTTPProxies, each listener with a filter chain per secure host), where a
// linear cache encodes each version of a resource once for all clients.
// State-of-the-world responses carry a counter of the cache's updates as
// version_info ("listener-3"): a type whose content did not change is not
// updated, so it keeps its version and its watches asleep. Delta
// (incremental) streams get each resource's content hash.

import (
	"context"
	"sync/atomic"

	"github.com/envoyproxy/go-control-plane/pkg/cache/types"
	cachev3 "github.com/envoyproxy/go-control-plane/pkg/cache/v3"
	"github.com/envoyproxy/go-control-plane/pkg/log"
	resourcev3 "github.com/envoyproxy/go-control-plane/pkg/resource/v3"
)

// namedTypes are the types clients subscribe to by name; the other served
// types (listeners, clusters) are subscribed to whole.
var namedTypes = map[string]bool{
	resourcev3.RouteType:    true,
	resourcev3.EndpointType: true,
	resourcev3.SecretType:   true,
	resourcev3.RuntimeType:  true,
}

// xdsCache holds what the xDS services serve. Every Envoy gets the same
// configuration, as with Contour, whatever its node id or cluster.
type xdsCache struct {
	linear map[string]*cachev3.LinearCache
	mux    *cachev3.MuxCache

	// published holds, by type, the content hash of each resource last
	// put into that type's linear cache, and index the names' index of
	// the set last published (subscriptions.go). Only the publishing
	// goroutine uses them.
	published map[string]map[string]string
	index     map[string]*nameIndex
	// covering holds, by type, a set holding every name in that type's
	// linear cache, or nil while they change.
	covering map[string]*atomic.Pointer[nameSet]
	subs     *subscriptions
}

func newXDSCache(logger log.Logger, subs *subscriptions) *xdsCache {
	c := &xdsCache{
		linear:    map[string]*cachev3.LinearCache{},
		published: map[string]map[string]string{},
		index:     map[string]*nameIndex{},
		covering:  map[string]*atomic.Pointer[nameSet]{},
		subs:      subs,
		mux: &cachev3.MuxCache{
			Classify:      func(r *cachev3.Request) string { return r.GetTypeUrl() },
			ClassifyDelta: func(r *cachev3.DeltaRequest) string { return r.GetTypeUrl() },
			Caches:        map[string]cachev3.Cache{},
		},
	}
	for _, t := range servedTypes {
		c.linear[t] = cachev3.NewLinearCache(t,
			cachev3.WithVersionPrefix(typeLabel(t)+"-"), cachev3.WithLogger(logger))
		c.covering[t] = &atomic.Pointer[nameSet]{}
		c.mux.Caches[t] = subscriptionCache{LinearCache: c.linear[t], subs: subs, covering: c.covering[t]}
	}
	return c
}

// publish makes s what every client is served, notifying only the watches
// whose resources changed. New and changed named resources go in first,
// then listeners and clusters, and removed named ones last, so a listener
// or cluster that appears with s finds the route configuration, load
// assignment or secret it names already there, and one that goes away
// loses them only after Envoy was told to drop it. A type whose names
// change has no covering set from before its first update to after its
// last.
func (c *xdsCache) publish(_ context.Context, s *snapshot) error {
	removed := map[string][]string{}
	for _, t := range servedTypes {
		if c.index[t] != s.set(t).index {
			c.covering[t].Store(nil)
		}
	}
	for _, t := range servedTypes {
		if namedTypes[t] {
			changed, gone := c.changes(s.set(t))
			removed[t] = gone
			if err := c.update(t, changed, nil); err != nil {
				return err
			}
		}
	}
	for _, t := range servedTypes {
		if !namedTypes[t] {
			// All at once: every response of these types carries all
			// of them, and one update makes one response.
			changed, gone := c.changes(s.set(t))
			if err := c.update(t, changed, gone); err != nil {
				return err
			}
		}
	}
	for _, t := range servedTypes {
		if err := c.update(t, nil, removed[t]); err != nil {
			return err
		}
		c.published[t] = s.set(t).hashes
		if index := s.set(t).index; index != nil {
			c.index[t] = index
			c.covering[t].Store(&index.all)
		}
	}
	return nil
}

// update puts changed into typeURL's cache and takes removed out of it,
// waking the watches they concern; nothing when both are empty.
func (c *xdsCache) update(typeURL string, changed map[string]types.Resource, removed []string) error {
	if len(changed) == 0 && len(removed) == 0 {
		return nil
	}
	return c.linear[typeURL].UpdateResources(changed, removed)
}

// changes compares the resources of set with those last published.
func (c *xdsCache) changes(set *typeSet) (changed map[string]types.Resource, removed []string) {
	last := c.published[set.typeURL]
	changed = map[string]types.Resource{}
	for i, name := range set.names {
		if last[name] != set.hashes[name] {
			changed[name] = set.served[i]
		}
	}
	for name := range last {
		if _, ok := set.hashes[name]; !ok {
			removed = append(removed, name)
		}
	}
	return changed, removed
}
