package translate

import (
	"sort"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	httpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// Envoy clusters from the DAG. Only clusters that a valid virtual host's
// routes use are published, once per name: the first one met wins, and
// contourc meets them in listener, virtual host and route order.

// referencedClusters returns the DAG clusters the valid virtual hosts use,
// deduplicated by cluster name, ordered by name.
func referencedClusters(d *DAG) []*Cluster {
	seen := map[string]*Cluster{}
	add := func(vh *VirtualHost) {
		for _, r := range vh.Routes() {
			for _, c := range r.Clusters {
				if _, ok := seen[clusterName(c)]; !ok {
					seen[clusterName(c)] = c
				}
			}
		}
	}
	for _, l := range d.sortedListeners() {
		for _, vh := range l.virtualHosts() {
			add(vh)
		}
		for _, svh := range l.secureVirtualHosts() {
			add(&svh.VirtualHost)
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]*Cluster, len(names))
	for i, n := range names {
		out[i] = seen[n]
	}
	return out
}

// cluster builds the Envoy cluster for c. With dnsDomain set, c's Service
// has no endpoints in the input and Envoy resolves it by DNS instead.
func cluster(c *Cluster, dnsDomain string) *clusterv3.Cluster {
	svc := c.Upstream
	out := &clusterv3.Cluster{
		Name:           clusterName(c),
		AltStatName:    altStatName(svc),
		ConnectTimeout: durationpb.New(2 * time.Second),
		// Contour disables Envoy's panic mode: unhealthy hosts are never used.
		CommonLbConfig: &clusterv3.Cluster_CommonLbConfig{HealthyPanicThreshold: &typev3.Percent{Value: 0}},
		LbPolicy:       lbPolicy(c.LoadBalancerPolicy),
	}
	if dnsDomain == "" {
		out.ClusterDiscoveryType = &clusterv3.Cluster_Type{Type: clusterv3.Cluster_EDS}
		out.EdsClusterConfig = &clusterv3.Cluster_EdsClusterConfig{EdsConfig: xdsConfigSource(), ServiceName: endpointsName(svc)}
	} else {
		out.ClusterDiscoveryType = &clusterv3.Cluster_Type{Type: clusterv3.Cluster_STRICT_DNS}
		host := svc.Name + "." + svc.Namespace + ".svc." + dnsDomain
		out.LoadAssignment = &endpointv3.ClusterLoadAssignment{
			ClusterName: endpointsName(svc),
			Endpoints: []*endpointv3.LocalityLbEndpoints{{
				LbEndpoints: []*endpointv3.LbEndpoint{lbEndpoint(host, uint32(svc.Port.Port))},
			}},
		}
	}
	out.CircuitBreakers = circuitBreakerThresholds(svc.CircuitBreakers)
	http2 := false
	switch c.Protocol {
	case "tls":
		out.TransportSocket = upstreamTLSTransportSocket(c.SNI)
	case "h2":
		http2 = true
		out.TransportSocket = upstreamTLSTransportSocket(c.SNI, "h2")
	case "h2c":
		http2 = true
	}
	if http2 {
		out.TypedExtensionProtocolOptions = map[string]*anypb.Any{
			"envoy.extensions.upstreams.http.v3.HttpProtocolOptions": mustAny(&httpv3.HttpProtocolOptions{
				UpstreamProtocolOptions: &httpv3.HttpProtocolOptions_ExplicitHttpConfig_{ExplicitHttpConfig: &httpv3.HttpProtocolOptions_ExplicitHttpConfig{
					ProtocolConfig: &httpv3.HttpProtocolOptions_ExplicitHttpConfig_Http2ProtocolOptions{},
				}},
			}),
		}
	}
	return out
}

func lbPolicy(policy string) clusterv3.Cluster_LbPolicy {
	switch policy {
	case "WeightedLeastRequest":
		return clusterv3.Cluster_LEAST_REQUEST
	case "Random":
		return clusterv3.Cluster_RANDOM
	case "Cookie", "RequestHash":
		return clusterv3.Cluster_RING_HASH
	default:
		return clusterv3.Cluster_ROUND_ROBIN
	}
}

// circuitBreakerThresholds is nil unless some threshold is set.
func circuitBreakerThresholds(cb CircuitBreakers) *clusterv3.CircuitBreakers {
	if cb == (CircuitBreakers{}) {
		return nil
	}
	return &clusterv3.CircuitBreakers{
		Thresholds: []*clusterv3.CircuitBreakers_Thresholds{{
			MaxConnections:     uint32OrNil(cb.MaxConnections),
			MaxPendingRequests: uint32OrNil(cb.MaxPendingRequests),
			MaxRequests:        uint32OrNil(cb.MaxRequests),
			MaxRetries:         uint32OrNil(cb.MaxRetries),
			TrackRemaining:     true,
		}},
		PerHostThresholds: []*clusterv3.CircuitBreakers_Thresholds{{
			MaxConnections: uint32OrNil(cb.PerHostMaxConnections),
			TrackRemaining: true,
		}},
	}
}

func uint32OrNil(v uint32) *wrapperspb.UInt32Value {
	if v == 0 {
		return nil
	}
	return wrapperspb.UInt32(v)
}

// defaultCipherSuites are Contour's TLS cipher suites, downstream and upstream.
var defaultCipherSuites = []string{
	"[ECDHE-ECDSA-AES128-GCM-SHA256|ECDHE-ECDSA-CHACHA20-POLY1305]",
	"[ECDHE-RSA-AES128-GCM-SHA256|ECDHE-RSA-CHACHA20-POLY1305]",
	"ECDHE-ECDSA-AES256-GCM-SHA384",
	"ECDHE-RSA-AES256-GCM-SHA384",
}

// upstreamTLSTransportSocket speaks TLS 1.2-1.3 to the upstream with the
// given SNI and ALPN protocols.
func upstreamTLSTransportSocket(sni string, alpn ...string) *corev3.TransportSocket {
	ctx := &tlsv3.UpstreamTlsContext{
		CommonTlsContext: &tlsv3.CommonTlsContext{
			TlsParams: &tlsv3.TlsParameters{
				TlsMinimumProtocolVersion: tlsv3.TlsParameters_TLSv1_2,
				TlsMaximumProtocolVersion: tlsv3.TlsParameters_TLSv1_3,
				CipherSuites:              defaultCipherSuites,
			},
			AlpnProtocols: alpn,
		},
		Sni: sni,
	}
	return &corev3.TransportSocket{
		Name:       "envoy.transport_sockets.tls",
		ConfigType: &corev3.TransportSocket_TypedConfig{TypedConfig: mustAny(ctx)},
	}
}

// lbEndpoint is one upstream address.
func lbEndpoint(address string, port uint32) *endpointv3.LbEndpoint {
	return &endpointv3.LbEndpoint{HostIdentifier: &endpointv3.LbEndpoint_Endpoint{Endpoint: &endpointv3.Endpoint{
		Address: socketAddress(address, port),
	}}}
}

func socketAddress(address string, port uint32) *corev3.Address {
	return &corev3.Address{Address: &corev3.Address_SocketAddress{SocketAddress: &corev3.SocketAddress{
		Address:       address,
		PortSpecifier: &corev3.SocketAddress_PortValue{PortValue: port},
	}}}
}
