package serve

// The Envoy bootstrap for an Envoy that `contourc serve` configures: what
// `contour bootstrap` writes (the "contour" xDS cluster with its HTTP/2,
// circuit breakers and keepalives, an "envoy-admin" cluster, an RTDS runtime
// layer, optional mTLS and overload manager), except that Envoy is told to
// use one ADS stream for everything rather than a stream per type, and its
// admin interface listens on a TCP address rather than a Unix socket (see
// ConfigSourceADS for the envoy-admin listener this replaces).

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"time"

	bootstrapv3 "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	overloadv3 "github.com/envoyproxy/go-control-plane/envoy/config/overload/v3"
	re2v3 "github.com/envoyproxy/go-control-plane/envoy/extensions/regex_engines/v3"
	fixedheapv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/resource_monitors/fixed_heap/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	httpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/contourc/contourc/render"
)

// BootstrapOptions describe the Envoy and where its contourc serve is.
type BootstrapOptions struct {
	// NodeID and NodeCluster identify the Envoy (default "contourc"); the
	// server gives every node the same configuration.
	NodeID, NodeCluster string
	// XDSAddress is an IP address (a STATIC cluster) or a DNS name (a
	// STRICT_DNS one), as in Contour; XDSPort its port.
	XDSAddress string
	XDSPort    uint32
	// AdminAddress (an IP address) and AdminPort are where Envoy's admin
	// interface listens.
	AdminAddress string
	AdminPort    uint32
	// DNSLookupFamily is auto (default), v4, v6 or all, for the xDS
	// cluster's name.
	DNSLookupFamily string
	// TLS, when set, makes Envoy present a client certificate to the
	// server and check the server's against the CA (Contour's
	// --envoy-cafile, --envoy-cert-file, --envoy-key-file). The files must
	// exist where Envoy runs; their paths are written, not their content.
	TLS *TLSFiles
	// OverloadMaxHeap, when positive, is the heap size in bytes past
	// which Envoy shrinks its heap (95%) and stops accepting requests (98%).
	OverloadMaxHeap uint64
}

// Names shared with the resources translate produces.
const (
	adminClusterName   = "envoy-admin"
	runtimeLayerName   = "dynamic" // the RTDS resource translate serves
	xdsServerCertSAN   = "contour" // what Contour's Envoys expect of its certificate
	defaultNodeName    = "contourc"
	defaultXDSPort     = 8001
	defaultAdminPort   = 9001
	loopback           = "127.0.0.1"
	tlsTransportSocket = "envoy.transport_sockets.tls"
)

func (o BootstrapOptions) withDefaults() BootstrapOptions {
	if o.NodeID == "" {
		o.NodeID = defaultNodeName
	}
	if o.NodeCluster == "" {
		o.NodeCluster = defaultNodeName
	}
	if o.XDSAddress == "" {
		o.XDSAddress = loopback
	}
	if o.XDSPort == 0 {
		o.XDSPort = defaultXDSPort
	}
	if o.AdminAddress == "" {
		o.AdminAddress = loopback
	}
	if o.AdminPort == 0 {
		o.AdminPort = defaultAdminPort
	}
	if o.DNSLookupFamily == "" {
		o.DNSLookupFamily = "auto"
	}
	return o
}

// dnsLookupFamilies maps Contour's --dns-lookup-family values.
var dnsLookupFamilies = map[string]clusterv3.Cluster_DnsLookupFamily{
	"auto": clusterv3.Cluster_AUTO,
	"v4":   clusterv3.Cluster_V4_ONLY,
	"v6":   clusterv3.Cluster_V6_ONLY,
	"all":  clusterv3.Cluster_ALL,
}

// Bootstrap returns the Envoy bootstrap for o, validated with Envoy's rules
// (typed configs included).
func Bootstrap(o BootstrapOptions) (*bootstrapv3.Bootstrap, error) {
	o = o.withDefaults()
	family, ok := dnsLookupFamilies[o.DNSLookupFamily]
	if !ok {
		return nil, fmt.Errorf("invalid DNS lookup family %q: want auto, v4, v6 or all", o.DNSLookupFamily)
	}
	admin, err := netip.ParseAddr(o.AdminAddress)
	if err != nil {
		return nil, fmt.Errorf("admin address %q is not an IP address", o.AdminAddress)
	}
	xds, err := xdsCluster(o, family)
	if err != nil {
		return nil, err
	}
	adminAddr := socketAddress(admin.String(), o.AdminPort)
	b := &bootstrapv3.Bootstrap{
		Node: &corev3.Node{Id: o.NodeID, Cluster: o.NodeCluster},
		DynamicResources: &bootstrapv3.Bootstrap_DynamicResources{
			AdsConfig: &corev3.ApiConfigSource{
				ApiType:             corev3.ApiConfigSource_GRPC,
				TransportApiVersion: corev3.ApiVersion_V3,
				GrpcServices: []*corev3.GrpcService{{
					TargetSpecifier: &corev3.GrpcService_EnvoyGrpc_{EnvoyGrpc: &corev3.GrpcService_EnvoyGrpc{
						ClusterName: xdsClusterName,
						Authority:   xdsClusterName,
					}},
				}},
			},
			LdsConfig: adsConfigSource(),
			CdsConfig: adsConfigSource(),
		},
		StaticResources: &bootstrapv3.Bootstrap_StaticResources{
			Clusters: []*clusterv3.Cluster{xds, render.AdminCluster(adminAddr)},
		},
		LayeredRuntime: &bootstrapv3.LayeredRuntime{Layers: []*bootstrapv3.RuntimeLayer{{
			Name: runtimeLayerName,
			LayerSpecifier: &bootstrapv3.RuntimeLayer_RtdsLayer_{RtdsLayer: &bootstrapv3.RuntimeLayer_RtdsLayer{
				Name:       runtimeLayerName,
				RtdsConfig: adsConfigSource(),
			}},
		}, {
			// Last, so values set through /runtime_modify win, as
			// in Contour's bootstrap.
			Name:           "admin",
			LayerSpecifier: &bootstrapv3.RuntimeLayer_AdminLayer_{AdminLayer: &bootstrapv3.RuntimeLayer_AdminLayer{}},
		}}},
		Admin: render.AdminInterface(adminAddr),
		DefaultRegexEngine: &corev3.TypedExtensionConfig{
			Name:        "envoy.regex_engines.google_re2",
			TypedConfig: mustAny(&re2v3.GoogleRE2{}),
		},
		OverloadManager: overloadManager(o.OverloadMaxHeap),
	}
	if err := render.ValidateMessage(b); err != nil {
		return nil, fmt.Errorf("bootstrap: %w", err)
	}
	return b, nil
}

func adsConfigSource() *corev3.ConfigSource {
	return &corev3.ConfigSource{
		ConfigSourceSpecifier: &corev3.ConfigSource_Ads{Ads: &corev3.AggregatedConfigSource{}},
		ResourceApiVersion:    corev3.ApiVersion_V3,
	}
}

// xdsCluster is the "contour" cluster Envoy reaches contourc serve by, with
// the settings of Contour's bootstrap.
func xdsCluster(o BootstrapOptions, family clusterv3.Cluster_DnsLookupFamily) (*clusterv3.Cluster, error) {
	kind := clusterv3.Cluster_STRICT_DNS
	if _, err := netip.ParseAddr(o.XDSAddress); err == nil {
		kind = clusterv3.Cluster_STATIC
	}
	limits := func(p corev3.RoutingPriority) *clusterv3.CircuitBreakers_Thresholds {
		// xDS is a handful of long-lived streams that must never be
		// refused, whatever Envoy's defaults would allow.
		return &clusterv3.CircuitBreakers_Thresholds{
			Priority:           p,
			MaxConnections:     wrapperspb.UInt32(100000),
			MaxPendingRequests: wrapperspb.UInt32(100000),
			MaxRequests:        wrapperspb.UInt32(60000000),
			MaxRetries:         wrapperspb.UInt32(50),
			TrackRemaining:     true,
		}
	}
	c := &clusterv3.Cluster{
		Name:                 xdsClusterName,
		ClusterDiscoveryType: &clusterv3.Cluster_Type{Type: kind},
		ConnectTimeout:       durationpb.New(5 * time.Second),
		DnsLookupFamily:      family,
		LoadAssignment:       loadAssignment(xdsClusterName, socketAddress(o.XDSAddress, o.XDSPort)),
		CircuitBreakers: &clusterv3.CircuitBreakers{Thresholds: []*clusterv3.CircuitBreakers_Thresholds{
			limits(corev3.RoutingPriority_HIGH), limits(corev3.RoutingPriority_DEFAULT),
		}},
		// gRPC needs HTTP/2, and Envoy would otherwise speak HTTP/1.1.
		TypedExtensionProtocolOptions: map[string]*anypb.Any{
			"envoy.extensions.upstreams.http.v3.HttpProtocolOptions": mustAny(&httpv3.HttpProtocolOptions{
				UpstreamProtocolOptions: &httpv3.HttpProtocolOptions_ExplicitHttpConfig_{ExplicitHttpConfig: &httpv3.HttpProtocolOptions_ExplicitHttpConfig{
					ProtocolConfig: &httpv3.HttpProtocolOptions_ExplicitHttpConfig_Http2ProtocolOptions{Http2ProtocolOptions: &corev3.Http2ProtocolOptions{}},
				}},
			}),
		},
		// Notice a dead control plane (or a NAT dropping the idle stream)
		// in under a minute rather than the kernel's two hours.
		UpstreamConnectionOptions: &clusterv3.UpstreamConnectionOptions{TcpKeepalive: &corev3.TcpKeepalive{
			KeepaliveProbes:   wrapperspb.UInt32(3),
			KeepaliveTime:     wrapperspb.UInt32(30),
			KeepaliveInterval: wrapperspb.UInt32(5),
		}},
	}
	if o.TLS != nil {
		ts, err := xdsClientTLS(*o.TLS)
		if err != nil {
			return nil, err
		}
		c.TransportSocket = ts
	}
	return c, nil
}

// xdsClientTLS is Envoy's side of the xDS mTLS, from files Envoy reads (and
// which must be there, non-empty, as Contour checks: Envoy would refuse the
// bootstrap otherwise, with a less helpful message).
func xdsClientTLS(f TLSFiles) (*corev3.TransportSocket, error) {
	for _, p := range []string{f.CAFile, f.CertFile, f.KeyFile} {
		if p == "" {
			return nil, errors.New("the CA, certificate and key files go together: give all three or none")
		}
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if fi.Size() == 0 {
			return nil, fmt.Errorf("%s is empty", p)
		}
	}
	file := func(p string) *corev3.DataSource {
		return &corev3.DataSource{Specifier: &corev3.DataSource_Filename{Filename: p}}
	}
	ctx := &tlsv3.UpstreamTlsContext{CommonTlsContext: &tlsv3.CommonTlsContext{
		TlsParams: &tlsv3.TlsParameters{TlsMaximumProtocolVersion: tlsv3.TlsParameters_TLSv1_3},
		TlsCertificates: []*tlsv3.TlsCertificate{{
			CertificateChain: file(f.CertFile),
			PrivateKey:       file(f.KeyFile),
		}},
		ValidationContextType: &tlsv3.CommonTlsContext_ValidationContext{ValidationContext: &tlsv3.CertificateValidationContext{
			TrustedCa: file(f.CAFile),
			MatchTypedSubjectAltNames: []*tlsv3.SubjectAltNameMatcher{{
				SanType: tlsv3.SubjectAltNameMatcher_DNS,
				Matcher: &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: xdsServerCertSAN}},
			}},
		}},
	}}
	return &corev3.TransportSocket{
		Name:       tlsTransportSocket,
		ConfigType: &corev3.TransportSocket_TypedConfig{TypedConfig: mustAny(ctx)},
	}, nil
}

// overloadManager is Contour's heap protection, or nil without a limit.
func overloadManager(maxHeap uint64) *overloadv3.OverloadManager {
	if maxHeap == 0 {
		return nil
	}
	const monitor = "envoy.resource_monitors.fixed_heap"
	action := func(name string, threshold float64) *overloadv3.OverloadAction {
		return &overloadv3.OverloadAction{
			Name: name,
			Triggers: []*overloadv3.Trigger{{
				Name:         monitor,
				TriggerOneof: &overloadv3.Trigger_Threshold{Threshold: &overloadv3.ThresholdTrigger{Value: threshold}},
			}},
		}
	}
	return &overloadv3.OverloadManager{
		RefreshInterval: durationpb.New(250 * time.Millisecond),
		ResourceMonitors: []*overloadv3.ResourceMonitor{{
			Name:       monitor,
			ConfigType: &overloadv3.ResourceMonitor_TypedConfig{TypedConfig: mustAny(&fixedheapv3.FixedHeapConfig{MaxHeapSizeBytes: maxHeap})},
		}},
		Actions: []*overloadv3.OverloadAction{
			action("envoy.overload_actions.shrink_heap", 0.95),
			action("envoy.overload_actions.stop_accepting_requests", 0.98),
		},
	}
}

func socketAddress(host string, port uint32) *corev3.Address {
	return &corev3.Address{Address: &corev3.Address_SocketAddress{SocketAddress: &corev3.SocketAddress{
		Address:       host,
		PortSpecifier: &corev3.SocketAddress_PortValue{PortValue: port},
	}}}
}

func loadAssignment(cluster string, addr *corev3.Address) *endpointv3.ClusterLoadAssignment {
	return &endpointv3.ClusterLoadAssignment{
		ClusterName: cluster,
		Endpoints: []*endpointv3.LocalityLbEndpoints{{
			LbEndpoints: []*endpointv3.LbEndpoint{{
				HostIdentifier: &endpointv3.LbEndpoint_Endpoint{Endpoint: &endpointv3.Endpoint{Address: addr}},
			}},
		}},
	}
}

// mustAny packs m; packing a generated message cannot fail.
func mustAny(m proto.Message) *anypb.Any {
	a, err := anypb.New(m)
	if err != nil {
		panic(err)
	}
	return a
}
