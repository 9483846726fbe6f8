package serve

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	discoveryv3 "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	resourcev3 "github.com/envoyproxy/go-control-plane/pkg/resource/v3"
	"google.golang.org/grpc"
)

// deltaClient is an incremental (delta) ADS client: it subscribes to
// listeners and clusters (wildcard) and to the resources they name, applies
// added, changed and removed resources, and acknowledges each response.
type deltaClient struct {
	node   *corev3.Node
	conn   *grpc.ClientConn
	cancel context.CancelFunc
	wg     sync.WaitGroup

	sendMu sync.Mutex
	stream discoveryv3.AggregatedDiscoveryService_DeltaAggregatedResourcesClient

	mu   sync.Mutex
	view xdsView
	err  error
}

func newDeltaClient(t testing.TB, addr string) *deltaClient {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c := &deltaClient{
		node:   &corev3.Node{Id: "delta", Cluster: "test"},
		conn:   dial(t, addr, nil),
		cancel: cancel,
		view:   xdsView{types: map[string]*typeState{}},
	}
	t.Cleanup(c.close)
	var err error
	if c.stream, err = discoveryv3.NewAggregatedDiscoveryServiceClient(c.conn).DeltaAggregatedResources(ctx); err != nil {
		t.Fatal(err)
	}
	c.wg.Go(c.read)
	// An empty first subscription is the wildcard one for listeners and
	// clusters.
	for _, r := range []*discoveryv3.DeltaDiscoveryRequest{
		{Node: c.node, TypeUrl: resourcev3.ClusterType},
		{Node: c.node, TypeUrl: resourcev3.ListenerType},
		{Node: c.node, TypeUrl: resourcev3.RuntimeType, ResourceNamesSubscribe: []string{runtimeLayerName}},
	} {
		if err := c.send(r); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func (c *deltaClient) send(r *discoveryv3.DeltaDiscoveryRequest) error {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	return c.stream.Send(r)
}

func (c *deltaClient) read() {
	for {
		resp, err := c.stream.Recv()
		if err == nil {
			err = c.handle(resp)
		}
		if err != nil {
			c.mu.Lock()
			c.err = err
			c.mu.Unlock()
			return
		}
	}
}

func (c *deltaClient) handle(resp *discoveryv3.DeltaDiscoveryResponse) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	typ := resp.GetTypeUrl()
	st := c.view.state(typ)
	var names []string
	for _, r := range resp.GetResources() {
		m, err := unpack(r.GetResource())
		if err != nil {
			return err
		}
		st.resources[r.GetName()] = m
		st.resourceVers[r.GetName()] = r.GetVersion()
		names = append(names, r.GetName())
	}
	for _, n := range resp.GetRemovedResources() {
		delete(st.resources, n)
		delete(st.resourceVers, n)
	}
	st.version, st.nonce = resp.GetSystemVersionInfo(), resp.GetNonce()
	c.view.log = append(c.view.log, received{typeURL: typ, version: st.version, names: names})
	if err := c.send(&discoveryv3.DeltaDiscoveryRequest{TypeUrl: typ, ResponseNonce: resp.GetNonce()}); err != nil {
		return err
	}
	if !fullState[typ] {
		return nil
	}
	for t, want := range c.view.wanted() {
		dep := c.view.state(t)
		var add, drop []string
		for _, n := range want {
			if !slices.Contains(dep.names, n) {
				add = append(add, n)
			}
		}
		for _, n := range dep.names {
			if !slices.Contains(want, n) {
				drop = append(drop, n)
				delete(dep.resources, n)
			}
		}
		if len(add) == 0 && len(drop) == 0 {
			continue
		}
		dep.names = want
		if err := c.send(&discoveryv3.DeltaDiscoveryRequest{
			Node: c.node, TypeUrl: t, ResourceNamesSubscribe: add, ResourceNamesUnsubscribe: drop,
		}); err != nil {
			return err
		}
	}
	return nil
}

func (c *deltaClient) waitFor(t testing.TB, what string, cond func(v *xdsView) bool) {
	t.Helper()
	waitFor(t, what, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.err != nil && !errors.Is(c.err, context.Canceled) {
			t.Fatalf("waiting for %s: the stream ended: %v", what, c.err)
		}
		return cond(&c.view)
	})
}

func (c *deltaClient) close() {
	c.cancel()
	c.conn.Close()
	c.wg.Wait()
}
