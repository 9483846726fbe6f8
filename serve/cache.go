package serve

// The xDS caches the gRPC services answer from: a go-control-plane snapshot
// cache for listeners and clusters, and a linear cache for each type that
// clients ask for by name (route configurations, endpoints, secrets,
// runtimes), behind a mux that picks by type URL.
//
// Contour uses a linear cache for endpoints only. Why one for every named
// type: the snapshot cache answers every open state-of-the-world watch of a
// type whose version changed with every resource the watch names. An Envoy
// bootstrapped by Contour opens a stream per cluster, route configuration and
// secret, so one changed Service would wake every EDS stream of every Envoy;
// over ADS, one changed HTTPProxy would resend all route configurations (at
// 5,000 HTTPProxies, megabytes per Envoy per change). The linear cache
// versions each resource and wakes only the watches that asked for one that
// changed, sending only those; Envoy applies a partial response of these
// types to just the resources in it. Listeners and clusters are different:
// clients subscribe to all of them and every response must carry all of
// them, so the snapshot cache, with a content-derived version per type
// (snapshot.go), is the right fit, and a type whose content did not change
// keeps its version and its watches asleep. Delta (incremental) streams get
// per-resource versions from both caches.

import (
	"context"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	"github.com/envoyproxy/go-control-plane/pkg/cache/types"
	cachev3 "github.com/envoyproxy/go-control-plane/pkg/cache/v3"
	"github.com/envoyproxy/go-control-plane/pkg/log"
	resourcev3 "github.com/envoyproxy/go-control-plane/pkg/resource/v3"
)

// nodeGroup is the one key every Envoy's requests map to: all Envoys get the
// same configuration, as with Contour, whatever their node id or cluster.
const nodeGroup = "contourc"

type allNodes struct{}

func (allNodes) ID(*corev3.Node) string { return nodeGroup }

// namedTypes are the types clients subscribe to by name, served from linear
// caches; the other served types (listeners, clusters) come from the
// snapshot cache.
var namedTypes = map[string]bool{
	resourcev3.RouteType:    true,
	resourcev3.EndpointType: true,
	resourcev3.SecretType:   true,
	resourcev3.RuntimeType:  true,
}

// xdsCache holds what the xDS services serve.
type xdsCache struct {
	snapshots cachev3.SnapshotCache
	linear    map[string]*cachev3.LinearCache
	mux       *cachev3.MuxCache

	// published holds, by type, the content hash of each resource last
	// put into that type's linear cache. Only the publishing goroutine
	// uses it.
	published map[string]map[string]string
}

func newXDSCache(logger log.Logger) *xdsCache {
	c := &xdsCache{
		// ads=false, as Contour: with ads=true the cache would hold back a
		// response until a request names every resource of the snapshot,
		// which per-type clients (Contour's bootstrap) never do.
		snapshots: cachev3.NewSnapshotCache(false, allNodes{}, logger),
		linear:    map[string]*cachev3.LinearCache{},
		published: map[string]map[string]string{},
		mux: &cachev3.MuxCache{
			Classify:      func(r *cachev3.Request) string { return r.GetTypeUrl() },
			ClassifyDelta: func(r *cachev3.DeltaRequest) string { return r.GetTypeUrl() },
			Caches:        map[string]cachev3.Cache{},
		},
	}
	for _, t := range servedTypes {
		if !namedTypes[t] {
			c.mux.Caches[t] = c.snapshots
			continue
		}
		// State-of-the-world responses of a linear cache carry a counter
		// of its updates as version_info ("route-3"); delta ones carry
		// each resource's content hash.
		c.linear[t] = cachev3.NewLinearCache(t,
			cachev3.WithVersionPrefix(typeLabel(t)+"-"), cachev3.WithLogger(logger))
		c.mux.Caches[t] = c.linear[t]
	}
	return c
}

// publish makes s what every client is served, notifying only the watches
// whose resources changed. New and changed named resources go in first and
// removed ones last, so a listener or cluster that appears with s finds the
// route configuration, load assignment or secret it names already there,
// and one that goes away loses them only after Envoy was told to drop it.
func (c *xdsCache) publish(ctx context.Context, s *snapshot) error {
	removed := map[string][]string{}
	for t, lc := range c.linear {
		changed, gone := c.changes(s.set(t))
		removed[t] = gone
		if len(changed) > 0 {
			if err := lc.UpdateResources(changed, nil); err != nil {
				return err
			}
		}
	}
	snap := &cachev3.Snapshot{}
	for _, set := range s.sets {
		if !namedTypes[set.typeURL] {
			snap.Resources[cachev3.GetResponseType(set.typeURL)] = cachev3.NewResources(set.version, set.served)
		}
	}
	if err := c.snapshots.SetSnapshot(ctx, nodeGroup, snap); err != nil {
		return err
	}
	for t, lc := range c.linear {
		if len(removed[t]) > 0 {
			if err := lc.UpdateResources(nil, removed[t]); err != nil {
				return err
			}
		}
		c.published[t] = s.set(t).hashes
	}
	return nil
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
