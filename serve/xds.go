package serve

// The xDS gRPC server: the services Contour registers, answering from the
// caches, with Contour's stream limits and keepalives.

import (
	"context"
	"log/slog"
	"sync"
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	discoveryv3 "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	cachev3 "github.com/envoyproxy/go-control-plane/pkg/cache/v3"
	serverv3 "github.com/envoyproxy/go-control-plane/pkg/server/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/peer"

	clusterservice "github.com/envoyproxy/go-control-plane/envoy/service/cluster/v3"
	endpointservice "github.com/envoyproxy/go-control-plane/envoy/service/endpoint/v3"
	listenerservice "github.com/envoyproxy/go-control-plane/envoy/service/listener/v3"
	routeservice "github.com/envoyproxy/go-control-plane/envoy/service/route/v3"
	runtimeservice "github.com/envoyproxy/go-control-plane/envoy/service/runtime/v3"
	secretservice "github.com/envoyproxy/go-control-plane/envoy/service/secret/v3"
	"github.com/envoyproxy/go-control-plane/pkg/server/sotw/v3"
)

// newGRPCServer registers ADS (state of the world and delta) and the
// per-type services Contour registers, so that an Envoy bootstrapped for
// Contour (one stream per type and resource) works unchanged next to one
// bootstrapped by `contourc bootstrap` (one ADS stream). Streams end when ctx
// is cancelled, which is what lets GracefulStop finish: xDS streams never
// end on their own.
func newGRPCServer(ctx context.Context, c cachev3.Cache, cb serverv3.Callbacks, creds credentials.TransportCredentials, log *slog.Logger) *grpc.Server {
	opts := []grpc.ServerOption{
		// Contour's settings: an Envoy bootstrapped by Contour opens one
		// EDS stream per cluster, far beyond gRPC's default of 100
		// streams per connection.
		grpc.MaxConcurrentStreams(1 << 20),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{PermitWithoutStream: true}),
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: 60 * time.Second, Timeout: 20 * time.Second}),
	}
	if creds != nil {
		opts = append(opts, grpc.Creds(creds))
	}
	g := grpc.NewServer(opts...)
	xds := serverv3.NewServer(ctx, c, cb, sotw.WithLogger(controlPlaneLogger{log}))
	discoveryv3.RegisterAggregatedDiscoveryServiceServer(g, xds)
	secretservice.RegisterSecretDiscoveryServiceServer(g, xds)
	clusterservice.RegisterClusterDiscoveryServiceServer(g, xds)
	endpointservice.RegisterEndpointDiscoveryServiceServer(g, xds)
	listenerservice.RegisterListenerDiscoveryServiceServer(g, xds)
	routeservice.RegisterRouteDiscoveryServiceServer(g, xds)
	runtimeservice.RegisterRuntimeDiscoveryServiceServer(g, xds)
	return g
}

// streamTracker counts open streams by type for metrics, and handles the
// responses Envoys reject (nack.go).
type streamTracker struct {
	metrics *metrics
	log     *slog.Logger
	// subs interns the resource names of requests and rewrites those
	// that subscribe to every served name (subscriptions.go);
	// internVersions interns the names of delta clients' initial
	// versions (names.go).
	subs           *subscriptions
	internVersions func(typeURL string, versions map[string]string) map[string]string

	mu sync.Mutex
	// open holds the type label of every open stream. SotW and delta
	// streams are numbered separately, hence the mode in the key.
	open map[streamKey]string
	// sent holds, by stream and type URL, the last response sent: what a
	// NACK's nonce refers to.
	sent map[streamKey]map[string]sentResponse
	// logged holds, by client and type URL, the last version whose
	// rejection was logged.
	logged map[nackKey]string
}

type streamKey struct {
	mode string
	id   int64
}

func newStreamTracker(m *metrics, log *slog.Logger) *streamTracker {
	return &streamTracker{metrics: m, log: log, open: map[streamKey]string{},
		sent: map[streamKey]map[string]sentResponse{}, logged: map[nackKey]string{}}
}

func (t *streamTracker) callbacks() serverv3.CallbackFuncs {
	return serverv3.CallbackFuncs{
		StreamOpenFunc:        func(ctx context.Context, id int64, typeURL string) error { return t.opened(ctx, "sotw", id, typeURL) },
		StreamClosedFunc:      func(id int64, _ *corev3.Node) { t.closed("sotw", id) },
		DeltaStreamOpenFunc:   func(ctx context.Context, id int64, typeURL string) error { return t.opened(ctx, "delta", id, typeURL) },
		DeltaStreamClosedFunc: func(id int64, _ *corev3.Node) { t.closed("delta", id) },
		StreamRequestFunc: func(id int64, r *discoveryv3.DiscoveryRequest) error {
			t.subs.sotwRequest(id, r)
			if r.GetErrorDetail() != nil {
				t.sotwNACK(id, r)
			}
			return nil
		},
		StreamResponseFunc: func(_ context.Context, id int64, _ *discoveryv3.DiscoveryRequest, r *discoveryv3.DiscoveryResponse) {
			t.sending(streamKey{"sotw", id}, r.GetTypeUrl(), r.GetNonce(), r.GetVersionInfo())
		},
		StreamDeltaRequestFunc: func(id int64, r *discoveryv3.DeltaDiscoveryRequest) error {
			t.subs.deltaRequest(id, r)
			r.InitialResourceVersions = t.internVersions(r.GetTypeUrl(), r.GetInitialResourceVersions())
			if r.GetErrorDetail() != nil {
				t.deltaNACK(id, r)
			}
			return nil
		},
		StreamDeltaResponseFunc: func(id int64, _ *discoveryv3.DeltaDiscoveryRequest, r *discoveryv3.DeltaDiscoveryResponse) {
			t.sending(streamKey{"delta", id}, r.GetTypeUrl(), r.GetNonce(), r.GetSystemVersionInfo())
		},
	}
}

func (t *streamTracker) opened(ctx context.Context, mode string, id int64, typeURL string) error {
	label := typeLabel(typeURL)
	t.mu.Lock()
	t.open[streamKey{mode, id}] = label
	t.mu.Unlock()
	t.metrics.streams.WithLabelValues(label, mode).Inc()
	if t.log.Enabled(ctx, slog.LevelDebug) {
		addr := ""
		if p, ok := peer.FromContext(ctx); ok {
			addr = p.Addr.String()
		}
		t.log.Debug("xDS stream opened", "type", label, "mode", mode, "stream", id, "peer", addr)
	}
	return nil
}

func (t *streamTracker) closed(mode string, id int64) {
	t.mu.Lock()
	label, ok := t.open[streamKey{mode, id}]
	delete(t.open, streamKey{mode, id})
	delete(t.sent, streamKey{mode, id})
	t.mu.Unlock()
	t.subs.closed(streamKey{mode, id})
	if ok {
		t.metrics.streams.WithLabelValues(label, mode).Dec()
		t.log.Debug("xDS stream closed", "type", label, "mode", mode, "stream", id)
	}
}
