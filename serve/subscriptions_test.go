package serve

import (
	"context"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	discoveryv3 "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	resourcev3 "github.com/envoyproxy/go-control-plane/pkg/resource/v3"
)

// Envoys subscribed to every served route table, load assignment and
// secret share one subscription of each type: each linear cache files
// their watches once, as wildcard ones, rather than under every name.
func TestSharedSubscriptions(t *testing.T) {
	dir := copyExamples(t)
	ts := startServer(t, []string{dir})
	ts.waitReady(t)
	sotw := newADSClient(t, ts.XDSAddr().String())
	delta := newDeltaClient(t, ts.XDSAddr().String())
	sotw.waitFor(t, "every type", (*xdsView).hasAll)
	delta.waitFor(t, "every type", (*xdsView).hasAll)
	for _, typ := range dependents {
		lc := ts.cache.linear[typ]
		waitFor(t, typeLabel(typ)+" watches", func() bool {
			return lc.NumWildcardWatches() == 2 && lc.NumCacheWatches() == 2
		})
	}
	// And still get what changes.
	writeFile(t, filepath.Join(dir, "c.yaml"), service("c", "10.3.0.1")+"---\n"+proxy("c", "/c"))
	sotw.waitFor(t, "the new HTTPProxy", func(v *xdsView) bool { return v.hasDomain("c.example.com") })
	delta.waitFor(t, "the new HTTPProxy", func(v *xdsView) bool { return v.hasDomain("c.example.com") })
}

// A client subscribed to every route table served gets, after a reload
// that adds one, the route tables it asked for that changed, not the new
// one, until it asks for it.
func TestSharedSubscriptionGetsOnlyWhatItAsks(t *testing.T) {
	dir := copyExamples(t)
	ts := startServer(t, []string{dir})
	ts.waitReady(t)
	old := slices.Clone(ts.current.Load().snap.set(resourcev3.RouteType).names)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	conn := dial(t, ts.XDSAddr().String(), nil)
	defer conn.Close()
	s, err := discoveryv3.NewAggregatedDiscoveryServiceClient(conn).StreamAggregatedResources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ask := func(names []string, last *discoveryv3.DiscoveryResponse) {
		t.Helper()
		if err := s.Send(&discoveryv3.DiscoveryRequest{Node: nodeFor("shared"), TypeUrl: resourcev3.RouteType,
			ResourceNames: names, VersionInfo: last.GetVersionInfo(), ResponseNonce: last.GetNonce()}); err != nil {
			t.Fatal(err)
		}
	}
	recv := func() (*discoveryv3.DiscoveryResponse, []string) {
		t.Helper()
		r, err := s.Recv()
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, a := range r.GetResources() {
			m, err := unpack(a)
			if err != nil {
				t.Fatal(err)
			}
			names = append(names, resourceNameOf(m))
		}
		slices.Sort(names)
		return r, names
	}
	ask(old, nil)
	r, got := recv()
	if !slices.Equal(got, old) {
		t.Fatalf("first response: %v, want %v", got, old)
	}
	ask(old, r)

	writeFile(t, filepath.Join(dir, "c.yaml"), service("c", "10.3.0.1")+"---\n"+proxy("c", "/c"))
	r, got = recv()
	if slices.Contains(got, "https/c.example.com") || len(got) == 0 {
		t.Fatalf("after the reload the client got %v, none of them new", got)
	}
	all := ts.current.Load().snap.set(resourcev3.RouteType).names
	if !slices.Contains(all, "https/c.example.com") {
		t.Fatalf("served: %v", all)
	}
	ask(all, r)
	if _, got = recv(); !slices.Equal(got, []string{"https/c.example.com"}) {
		t.Fatalf("asked for the new route table, got %v", got)
	}
}

// deltaStream is a raw delta ADS stream of route configurations.
type deltaStream struct {
	t testing.TB
	s discoveryv3.AggregatedDiscoveryService_DeltaAggregatedResourcesClient
}

func newDeltaStream(t testing.TB, addr string) *deltaStream {
	ctx, cancel := context.WithCancel(context.Background())
	conn := dial(t, addr, nil)
	t.Cleanup(func() { cancel(); conn.Close() })
	s, err := discoveryv3.NewAggregatedDiscoveryServiceClient(conn).DeltaAggregatedResources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return &deltaStream{t: t, s: s}
}

func (d *deltaStream) send(subscribe, unsubscribe []string, nonce string) {
	d.t.Helper()
	if err := d.s.Send(&discoveryv3.DeltaDiscoveryRequest{Node: nodeFor("delta"), TypeUrl: resourcev3.RouteType,
		ResourceNamesSubscribe: subscribe, ResourceNamesUnsubscribe: unsubscribe, ResponseNonce: nonce}); err != nil {
		d.t.Fatal(err)
	}
}

// recv returns the names of the next response's resources, and
// acknowledges it.
func (d *deltaStream) recv() []string {
	d.t.Helper()
	r, err := d.s.Recv()
	if err != nil {
		d.t.Fatal(err)
	}
	var names []string
	for _, res := range r.GetResources() {
		names = append(names, res.GetName())
	}
	slices.Sort(names)
	d.send(nil, nil, r.GetNonce())
	return names
}

// A delta client's unsubscription is what go-control-plane would make of
// it: a route table unsubscribed from and subscribed to again is sent
// again, though unchanged; and a client that then subscribes to the
// wildcard gets the route tables added later.
func TestSharedDeltaSubscription(t *testing.T) {
	dir := copyExamples(t)
	ts := startServer(t, []string{dir})
	ts.waitReady(t)
	all := slices.Clone(ts.current.Load().snap.set(resourcev3.RouteType).names)
	d := newDeltaStream(t, ts.XDSAddr().String())
	d.send(all, nil, "")
	if got := d.recv(); !slices.Equal(got, all) {
		t.Fatalf("first response: %v, want %v", got, all)
	}
	waitFor(t, "the shared watch", func() bool { return ts.cache.linear[resourcev3.RouteType].NumWildcardWatches() == 1 })
	d.send(nil, all[:1], "")
	d.send(all[:1], nil, "")
	if got := d.recv(); !slices.Equal(got, all[:1]) {
		t.Fatalf("subscribed again to %s, got %v", all[0], got)
	}

	d.send([]string{wildcard}, nil, "")
	writeFile(t, filepath.Join(dir, "c.yaml"), service("c", "10.3.0.1")+"---\n"+proxy("c", "/c"))
	deadline := time.Now().Add(waitTimeout)
	for time.Now().Before(deadline) {
		if slices.Contains(d.recv(), "https/c.example.com") {
			return
		}
	}
	t.Fatal("the wildcard subscriber never got the new route table")
}

// A subscription counts as a wildcard one only while the cache holds no
// name outside it, and never for a delta stream's first request.
func TestSharedSubscriptionIsWildcard(t *testing.T) {
	set := &nameSet{names: map[string]struct{}{"a": {}}}
	var covering atomic.Pointer[nameSet]
	sub := sharedSubscription{set: set, covering: &covering}
	if sub.IsWildcard() {
		t.Error("wildcard while the cache's names change")
	}
	covering.Store(set)
	if !sub.IsWildcard() {
		t.Error("not a wildcard though it holds every name of the cache")
	}
	if sub.named = true; sub.IsWildcard() {
		t.Error("a first delta request is a wildcard one")
	}
	covering.Store(&nameSet{names: map[string]struct{}{"a": {}}})
	if sub.named = false; sub.IsWildcard() {
		t.Error("wildcard for another set of names")
	}
}
