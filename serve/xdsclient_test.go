package serve

// xDS clients that behave as Envoy does, for end-to-end tests: they ask
// for listeners and clusters (wildcard), then for the route configurations,
// load assignments and secrets those name, and acknowledge every response
// with its version and nonce.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"sync"
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	clusterservice "github.com/envoyproxy/go-control-plane/envoy/service/cluster/v3"
	discoveryv3 "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	endpointservice "github.com/envoyproxy/go-control-plane/envoy/service/endpoint/v3"
	listenerservice "github.com/envoyproxy/go-control-plane/envoy/service/listener/v3"
	routeservice "github.com/envoyproxy/go-control-plane/envoy/service/route/v3"
	runtimeservice "github.com/envoyproxy/go-control-plane/envoy/service/runtime/v3"
	secretservice "github.com/envoyproxy/go-control-plane/envoy/service/secret/v3"
	resourcev3 "github.com/envoyproxy/go-control-plane/pkg/resource/v3"
	statuspb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
)

// fullState types are answered with every resource in each response; for
// the others a response carries only some of the subscribed resources.
var fullState = map[string]bool{resourcev3.ListenerType: true, resourcev3.ClusterType: true}

// dependents are the types whose subscriptions follow from listeners and
// clusters.
var dependents = []string{resourcev3.RouteType, resourcev3.EndpointType, resourcev3.SecretType}

// typeState is what a client holds of one type.
type typeState struct {
	version, nonce string
	names          []string // subscribed; nil for a wildcard subscription
	resources      map[string]proto.Message
	resourceVers   map[string]string // delta only
}

// received is one response, in arrival order.
type received struct {
	typeURL, version string
	names            []string
	domains          []string // of the route configurations in it
}

// xdsView is a client's state, read under its lock.
type xdsView struct {
	types map[string]*typeState
	log   []received
}

func (v *xdsView) state(typeURL string) *typeState {
	st, ok := v.types[typeURL]
	if !ok {
		st = &typeState{resources: map[string]proto.Message{}, resourceVers: map[string]string{}}
		v.types[typeURL] = st
	}
	return st
}

func (v *xdsView) version(typeURL string) string { return v.state(typeURL).version }

// hasAll reports whether a response of every served type arrived.
func (v *xdsView) hasAll() bool {
	for _, t := range servedTypes {
		if len(v.state(t).resources) == 0 {
			return false
		}
	}
	return true
}

// domains lists the domains of every virtual host the client has.
func (v *xdsView) domains() []string {
	var out []string
	for _, m := range v.state(resourcev3.RouteType).resources {
		for _, vh := range m.(*routev3.RouteConfiguration).GetVirtualHosts() {
			out = append(out, vh.GetDomains()...)
		}
	}
	sort.Strings(out)
	return out
}

func (v *xdsView) hasDomain(d string) bool { return slices.Contains(v.domains(), d) }

// endpoints lists the addresses of a load assignment.
func (v *xdsView) endpoints(cluster string) []string {
	m, ok := v.state(resourcev3.EndpointType).resources[cluster]
	if !ok {
		return nil
	}
	var out []string
	for _, l := range m.(*endpointv3.ClusterLoadAssignment).GetEndpoints() {
		for _, e := range l.GetLbEndpoints() {
			out = append(out, e.GetEndpoint().GetAddress().GetSocketAddress().GetAddress())
		}
	}
	sort.Strings(out)
	return out
}

// wanted computes, as Envoy does, which route configurations, load
// assignments and secrets the listeners and clusters refer to.
func (v *xdsView) wanted() map[string][]string {
	sets := map[string]map[string]bool{}
	for _, t := range dependents {
		sets[t] = map[string]bool{}
	}
	visit := func(m protoreflect.Message) bool {
		switch msg := m.Interface().(type) {
		case *hcmv3.HttpConnectionManager:
			if n := msg.GetRds().GetRouteConfigName(); n != "" {
				sets[resourcev3.RouteType][n] = true
			}
		case *tlsv3.SdsSecretConfig:
			sets[resourcev3.SecretType][msg.GetName()] = true
		case *clusterv3.Cluster:
			if msg.GetType() == clusterv3.Cluster_EDS {
				n := msg.GetEdsClusterConfig().GetServiceName()
				if n == "" {
					n = msg.GetName()
				}
				sets[resourcev3.EndpointType][n] = true
			}
		}
		return false
	}
	for _, t := range []string{resourcev3.ListenerType, resourcev3.ClusterType} {
		for _, m := range v.state(t).resources {
			_, _ = rewrite(m, visit)
		}
	}
	out := map[string][]string{}
	for t, s := range sets {
		// Never nil: a nil list means "not subscribed yet" to the caller.
		out[t] = append([]string{}, slices.Sorted(maps.Keys(s))...)
	}
	return out
}

// xdsStream is one gRPC stream of DiscoveryRequests.
type xdsStream interface {
	Send(*discoveryv3.DiscoveryRequest) error
	Recv() (*discoveryv3.DiscoveryResponse, error)
}

// sotwClient is a state-of-the-world client, over ADS or per-type streams.
type sotwClient struct {
	node   *corev3.Node
	conn   *grpc.ClientConn
	cancel context.CancelFunc
	wg     sync.WaitGroup

	streams map[string]*lockedStream // by type URL

	mu   sync.Mutex
	view xdsView
	err  error // how the stream ended, if it did
	// rejecting holds, by type URL, the error with which the client
	// rejects every response of that type, as an Envoy that cannot apply
	// them does.
	rejecting map[string]string
}

type lockedStream struct {
	mu sync.Mutex
	s  xdsStream
}

func (l *lockedStream) send(r *discoveryv3.DiscoveryRequest) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.s.Send(r)
}

func dial(t testing.TB, addr string, creds credentials.TransportCredentials) *grpc.ClientConn {
	t.Helper()
	if creds == nil {
		creds = insecure.NewCredentials()
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds),
		// Envoy takes messages of any size; gRPC's default is 4 MB.
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(1<<30)))
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// newADSClient connects one ADS stream, as an Envoy bootstrapped by
// `contourc bootstrap` does.
func newADSClient(t testing.TB, addr string) *sotwClient {
	t.Helper()
	c := newSotwClient(t, addr, nil)
	c.startADS(t)
	return c
}

func (c *sotwClient) startADS(t testing.TB) {
	t.Helper()
	if err := c.tryADS(); err != nil {
		t.Fatal(err)
	}
}

// tryADS opens the ADS stream and sends the first requests.
func (c *sotwClient) tryADS() error {
	s, err := discoveryv3.NewAggregatedDiscoveryServiceClient(c.conn).StreamAggregatedResources(c.ctx())
	if err != nil {
		return err
	}
	ls := &lockedStream{s: s}
	for _, typ := range servedTypes {
		c.streams[typ] = ls
	}
	return c.start(ls)
}

// newPerTypeClient opens a stream per type on the per-type services, as an
// Envoy bootstrapped by Contour does.
func newPerTypeClient(t testing.TB, addr string) *sotwClient {
	t.Helper()
	return newPerTypeClientWith(t, addr, nil)
}

// newPerTypeClientWith is newPerTypeClient with configure, when not nil,
// called on the client before it opens its streams.
func newPerTypeClientWith(t testing.TB, addr string, configure func(*sotwClient)) *sotwClient {
	t.Helper()
	c := newSotwClient(t, addr, nil)
	if configure != nil {
		configure(c)
	}
	ctx := c.ctx()
	open := map[string]func() (xdsStream, error){
		resourcev3.ListenerType: func() (xdsStream, error) {
			return listenerservice.NewListenerDiscoveryServiceClient(c.conn).StreamListeners(ctx)
		},
		resourcev3.RouteType: func() (xdsStream, error) {
			return routeservice.NewRouteDiscoveryServiceClient(c.conn).StreamRoutes(ctx)
		},
		resourcev3.ClusterType: func() (xdsStream, error) {
			return clusterservice.NewClusterDiscoveryServiceClient(c.conn).StreamClusters(ctx)
		},
		resourcev3.EndpointType: func() (xdsStream, error) {
			return endpointservice.NewEndpointDiscoveryServiceClient(c.conn).StreamEndpoints(ctx)
		},
		resourcev3.SecretType: func() (xdsStream, error) {
			return secretservice.NewSecretDiscoveryServiceClient(c.conn).StreamSecrets(ctx)
		},
		resourcev3.RuntimeType: func() (xdsStream, error) {
			return runtimeservice.NewRuntimeDiscoveryServiceClient(c.conn).StreamRuntime(ctx)
		},
	}
	for _, typ := range servedTypes {
		s, err := open[typ]()
		if err != nil {
			t.Fatal(err)
		}
		c.streams[typ] = &lockedStream{s: s}
	}
	if err := c.start(slices.Collect(mapValues(c.streams))...); err != nil {
		t.Fatal(err)
	}
	return c
}

func mapValues[K comparable, V any](m map[K]V) func(func(V) bool) {
	return func(yield func(V) bool) {
		for _, v := range m {
			if !yield(v) {
				return
			}
		}
	}
}

func newSotwClient(t testing.TB, addr string, creds credentials.TransportCredentials) *sotwClient {
	t.Helper()
	c := &sotwClient{
		node:    &corev3.Node{Id: fmt.Sprintf("test-%p", t), Cluster: "test"},
		conn:    dial(t, addr, creds),
		streams: map[string]*lockedStream{},
		view:    xdsView{types: map[string]*typeState{}},
	}
	t.Cleanup(c.close)
	return c
}

// ctx is the streams' context, cancelled by close.
func (c *sotwClient) ctx() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	return ctx
}

// start sends the first requests, as Envoy does at startup, and reads
// every stream in the background.
func (c *sotwClient) start(streams ...*lockedStream) error {
	seen := map[*lockedStream]bool{}
	for _, s := range streams {
		if seen[s] {
			continue
		}
		seen[s] = true
		c.wg.Go(func() { c.read(s) })
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.view.state(resourcev3.RuntimeType).names = []string{runtimeLayerName}
	for _, typ := range []string{resourcev3.ClusterType, resourcev3.ListenerType, resourcev3.RuntimeType} {
		if err := c.request(typ); err != nil {
			return err
		}
	}
	return nil
}

// request asks for typ with the client's current state of it; called with
// c.mu held.
func (c *sotwClient) request(typ string) error {
	st := c.view.state(typ)
	return c.streams[typ].send(&discoveryv3.DiscoveryRequest{
		Node:          c.node,
		TypeUrl:       typ,
		VersionInfo:   st.version,
		ResponseNonce: st.nonce,
		ResourceNames: st.names,
	})
}

func (c *sotwClient) read(s *lockedStream) {
	for {
		resp, err := s.s.Recv()
		if err != nil {
			c.mu.Lock()
			if c.err == nil {
				c.err = err
			}
			c.mu.Unlock()
			return
		}
		if err := c.handle(resp); err != nil {
			c.mu.Lock()
			c.err = err
			c.mu.Unlock()
			return
		}
	}
}

// handle applies a response, acknowledges it, and updates the
// subscriptions that follow from listeners and clusters.
func (c *sotwClient) handle(resp *discoveryv3.DiscoveryResponse) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	typ := resp.GetTypeUrl()
	st := c.view.state(typ)
	if fullState[typ] {
		st.resources = map[string]proto.Message{}
	}
	var names, domains []string
	for _, a := range resp.GetResources() {
		m, err := unpack(a)
		if err != nil {
			return err
		}
		name := resourceNameOf(m)
		st.resources[name] = m
		names = append(names, name)
		for _, vh := range routeConfigOf(m).GetVirtualHosts() {
			domains = append(domains, vh.GetDomains()...)
		}
	}
	c.view.log = append(c.view.log, received{typeURL: typ, version: resp.GetVersionInfo(), names: names, domains: domains})
	if msg, ok := c.rejecting[typ]; ok {
		// Envoy keeps the version it had; the resources are kept all
		// the same, so that the subscriptions they imply are made.
		st.nonce = resp.GetNonce()
		if err := c.streams[typ].send(c.rejection(typ, msg)); err != nil {
			return err
		}
	} else {
		st.version, st.nonce = resp.GetVersionInfo(), resp.GetNonce()
		if err := c.request(typ); err != nil {
			return err
		}
	}
	if !fullState[typ] {
		return nil
	}
	for t, names := range c.view.wanted() {
		dep := c.view.state(t)
		if dep.names != nil && slices.Equal(dep.names, names) {
			continue
		}
		dep.names = names
		for n := range dep.resources {
			if !slices.Contains(names, n) {
				delete(dep.resources, n)
			}
		}
		if err := c.request(t); err != nil {
			return err
		}
	}
	return nil
}

// routeConfigOf is m when it is a route configuration, nil otherwise.
func routeConfigOf(m proto.Message) *routev3.RouteConfiguration {
	rc, _ := m.(*routev3.RouteConfiguration)
	return rc
}

func unpack(a *anypb.Any) (proto.Message, error) {
	return a.UnmarshalNew()
}

// resourceNameOf is the name a resource is asked for by.
func resourceNameOf(m proto.Message) string {
	if cla, ok := m.(*endpointv3.ClusterLoadAssignment); ok {
		return cla.GetClusterName()
	}
	fd := m.ProtoReflect().Descriptor().Fields().ByName("name")
	return m.ProtoReflect().Get(fd).String()
}

// waitFor polls the client's state until cond holds.
func (c *sotwClient) waitFor(t testing.TB, what string, cond func(v *xdsView) bool) {
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

// inspect runs f on the client's state.
func (c *sotwClient) inspect(f func(v *xdsView)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f(&c.view)
}

// streamErr is how the stream ended (nil while it runs).
func (c *sotwClient) streamErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *sotwClient) close() {
	if c.cancel != nil {
		c.cancel()
	}
	c.conn.Close()
	c.wg.Wait()
}

// endedCleanly reports whether err is how a stream ends when the server
// stops gracefully or the client closes it.
func endedCleanly(err error) bool {
	return errors.Is(err, io.EOF) || status.Code(err) == codes.Canceled || status.Code(err) == codes.Unavailable
}

// nack rejects the response with nonce, as Envoy does when it cannot apply
// one: the previous version, the rejected nonce and an error.
func (c *sotwClient) nack(typ, nonce, msg string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.rejection(typ, msg)
	r.ResponseNonce = nonce
	return c.streams[typ].send(r)
}

// rejection is the request rejecting the last response of typ: the last
// accepted version, the response's nonce and an error; called with c.mu
// held.
func (c *sotwClient) rejection(typ, msg string) *discoveryv3.DiscoveryRequest {
	st := c.view.state(typ)
	return &discoveryv3.DiscoveryRequest{
		Node: c.node, TypeUrl: typ, VersionInfo: st.version, ResponseNonce: st.nonce, ResourceNames: st.names,
		ErrorDetail: &statuspb.Status{Code: int32(codes.InvalidArgument), Message: msg},
	}
}
