package envoy

import (
	"cmp"
	"strings"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	httpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/contourc/contourc/translate/config"
	"github.com/contourc/contourc/translate/dag"
)

// Envoy clusters from the DAG. Only clusters that a valid virtual host's
// routes use are published, once per name: the first one met wins, and
// contourc meets them in listener, virtual host and route order.

// ReferencedClusters returns the DAG clusters the valid virtual hosts use,
// deduplicated by cluster name, ordered by name. The slice is shared once
// the DAG is frozen: callers must not change it.
func ReferencedClusters(d *dag.DAG) []*dag.Cluster {
	if d.Frozen {
		return d.Referenced
	}
	var uses []*dag.Cluster
	eachCluster(d, func(c *dag.Cluster) { uses = append(uses, c) })
	return dag.FirstByName(uses)
}

// eachCluster calls f on each use of a cluster by the valid virtual hosts
// and TCP proxies, in listener, virtual host and route order.
func eachCluster(d *dag.DAG, f func(*dag.Cluster)) {
	dag.VisitClusters(d, func(vh *dag.VirtualHost) {
		for _, c := range vh.ClusterUses() {
			f(c)
		}
	}, f)
}

// EachClusterInAnyOrder is eachCluster for callers to whom the order does not
// matter: it does not sort each virtual host's routes, the bulk of the cost.
func EachClusterInAnyOrder(d *dag.DAG, f func(*dag.Cluster)) {
	dag.VisitClusters(d, func(vh *dag.VirtualHost) {
		for _, r := range vh.Routes {
			dag.RouteClusters(r, f)
		}
	}, f)
}

// cluster builds the Envoy cluster for c. With dnsDomain set, c's Service
// has no endpoints in the input and Envoy resolves it by DNS instead.
func cluster(c *dag.Cluster, dnsDomain string) *clusterv3.Cluster {
	return clusterWith(c, dnsDomain, config.Defaults())
}

// clusterWith is cluster with the configuration's cluster settings.
func clusterWith(c *dag.Cluster, dnsDomain string, s *config.Settings) *clusterv3.Cluster {
	svc := c.Upstream
	out := &clusterv3.Cluster{
		Name:           dag.ClusterName(c),
		AltStatName:    dag.AltStatName(svc),
		ConnectTimeout: durationpb.New(durationOrDefault(s.ConnectTimeout, config.DefaultConnectTimeout)),
		// Contour disables Envoy's panic mode: unhealthy hosts are never used.
		CommonLbConfig:  &clusterv3.Cluster_CommonLbConfig{HealthyPanicThreshold: &typev3.Percent{Value: 0}},
		LbPolicy:        lbPolicy(c.LoadBalancerPolicy),
		DnsLookupFamily: dnsLookupFamily(c.DNSLookupFamily),
	}
	if !c.HTTPProxyTCP && s.ClusterPerConnectionBufferLimitBytes != nil && *s.ClusterPerConnectionBufferLimitBytes > 0 {
		out.PerConnectionBufferLimitBytes = wrapperspb.UInt32(*s.ClusterPerConnectionBufferLimitBytes)
	}
	switch {
	case svc.ExternalName != "":
		out.ClusterDiscoveryType = &clusterv3.Cluster_Type{Type: clusterv3.Cluster_STRICT_DNS}
		if out.DnsLookupFamily == clusterv3.Cluster_ALL {
			out.ClusterDiscoveryType = &clusterv3.Cluster_Type{Type: clusterv3.Cluster_LOGICAL_DNS}
		}
		ep := &endpointv3.LbEndpoint{HostIdentifier: &endpointv3.LbEndpoint_Endpoint{Endpoint: &endpointv3.Endpoint{
			Address: listenerSocketAddress(svc.ExternalName, uint32(svc.Port.Port)),
		}}}
		if svc.HealthPort.Port != svc.Port.Port && svc.HealthPort.Port != 0 {
			ep.GetEndpoint().HealthCheckConfig = &endpointv3.Endpoint_HealthCheckConfig{PortValue: uint32(svc.HealthPort.Port)}
		}
		out.LoadAssignment = &endpointv3.ClusterLoadAssignment{
			ClusterName: dag.EndpointsName(svc),
			Endpoints:   []*endpointv3.LocalityLbEndpoints{{LbEndpoints: []*endpointv3.LbEndpoint{ep}}},
		}
	case dnsDomain == "":
		out.ClusterDiscoveryType = &clusterv3.Cluster_Type{Type: clusterv3.Cluster_EDS}
		out.EdsClusterConfig = &clusterv3.Cluster_EdsClusterConfig{EdsConfig: configSource(s), ServiceName: dag.EndpointsName(svc)}
	default:
		out.ClusterDiscoveryType = &clusterv3.Cluster_Type{Type: clusterv3.Cluster_STRICT_DNS}
		host := svc.Name + "." + svc.Namespace + ".svc." + dnsDomain
		out.LoadAssignment = &endpointv3.ClusterLoadAssignment{
			ClusterName: dag.EndpointsName(svc),
			Endpoints: []*endpointv3.LocalityLbEndpoints{{
				LbEndpoints: []*endpointv3.LbEndpoint{lbEndpoint(host, uint32(svc.Port.Port))},
			}},
		}
	}
	switch {
	case c.HealthCheck != nil:
		out.HealthChecks = []*corev3.HealthCheck{httpHealthCheckConfig(c)}
	case c.TCPHealthCheck != nil:
		out.HealthChecks = []*corev3.HealthCheck{tcpHealthCheckConfig(c.TCPHealthCheck)}
	}
	// Drain connections as soon as a checked host goes away.
	out.IgnoreHealthOnHostRemoval = len(out.HealthChecks) > 0
	out.CircuitBreakers = circuitBreakerThresholds(svc.CircuitBreakers)
	http2 := false
	tlsSocket := func(sni string, v *dag.UpstreamValidation, alpn ...string) *corev3.TransportSocket {
		ctx := upstreamTLSContext(sni, v, alpn...)
		if !c.OmitTLSParams {
			ctx.CommonTlsContext.TlsParams = upstreamTLSParams(s)
		}
		if cc := c.ClientCertificate; cc != nil {
			ctx.CommonTlsContext.TlsCertificateSdsSecretConfigs = []*tlsv3.SdsSecretConfig{{Name: dag.SecretName(cc), SdsConfig: configSource(s)}}
		}
		return upstreamTransportSocket(ctx)
	}
	switch c.Protocol {
	case "tls":
		out.TransportSocket = tlsSocket(c.SNI, c.Validation)
	case "h2":
		http2 = true
		out.TransportSocket = tlsSocket(c.SNI, c.Validation, "h2")
	case "h2c":
		http2 = true
	}
	var maxRequests *uint32
	if !c.HTTPProxyTCP {
		maxRequests = s.ClusterMaxRequestsPerConnection
	}
	out.TypedExtensionProtocolOptions = httpProtocolOptionsWith(http2, c.IdleConnectionTimeout, maxRequests)
	if ss := c.SlowStart; ss != nil {
		cfg := &clusterv3.Cluster_SlowStartConfig{
			SlowStartWindow:  durationpb.New(ss.Window),
			Aggression:       &corev3.RuntimeDouble{DefaultValue: ss.Aggression, RuntimeKey: "contour.slowstart.aggression"},
			MinWeightPercent: &typev3.Percent{Value: float64(ss.MinWeightPercent)},
		}
		switch out.LbPolicy {
		case clusterv3.Cluster_ROUND_ROBIN:
			out.LbConfig = &clusterv3.Cluster_RoundRobinLbConfig_{RoundRobinLbConfig: &clusterv3.Cluster_RoundRobinLbConfig{SlowStartConfig: cfg}}
		case clusterv3.Cluster_LEAST_REQUEST:
			out.LbConfig = &clusterv3.Cluster_LeastRequestLbConfig_{LeastRequestLbConfig: &clusterv3.Cluster_LeastRequestLbConfig{SlowStartConfig: cfg}}
		}
	}
	return out
}

// upstreamTLSParams are the configuration's upstream TLS versions, ciphers
// and curves.
func upstreamTLSParams(s *config.Settings) *tlsv3.TlsParameters {
	return &tlsv3.TlsParameters{
		TlsMinimumProtocolVersion: tlsProtocol(s.UpstreamTLS.MinimumProtocolVersion),
		TlsMaximumProtocolVersion: tlsProtocol(s.UpstreamTLS.MaximumProtocolVersion),
		CipherSuites:              append([]string(nil), s.UpstreamTLS.CipherSuites...),
		EcdhCurves:                s.UpstreamTLS.ECDHCurves,
	}
}

// explicitHTTP1Options pins the upstream to HTTP/1.1 even without an idle
// timeout, as Contour does for http/1.1 extensions.
func explicitHTTP1Options(idle dag.Timeout) map[string]*anypb.Any {
	opts := &httpv3.HttpProtocolOptions{UpstreamProtocolOptions: &httpv3.HttpProtocolOptions_ExplicitHttpConfig_{
		ExplicitHttpConfig: &httpv3.HttpProtocolOptions_ExplicitHttpConfig{ProtocolConfig: &httpv3.HttpProtocolOptions_ExplicitHttpConfig_HttpProtocolOptions{}},
	}}
	if idle.Set {
		opts.CommonHttpProtocolOptions = &corev3.HttpProtocolOptions{IdleTimeout: envoyTimeout(idle)}
	}
	return map[string]*anypb.Any{"envoy.extensions.upstreams.http.v3.HttpProtocolOptions": mustAny(opts)}
}

// httpProtocolOptions pins the upstream HTTP version when it is HTTP/2 or
// when an idle connection timeout needs the options at all; otherwise Envoy
// keeps its defaults.
func httpProtocolOptions(http2 bool, idle dag.Timeout) map[string]*anypb.Any {
	return httpProtocolOptionsWith(http2, idle, nil)
}

// httpProtocolOptionsWith is httpProtocolOptions with the configuration's
// cluster.max-requests-per-connection.
func httpProtocolOptionsWith(http2 bool, idle dag.Timeout, maxRequests *uint32) map[string]*anypb.Any {
	if !http2 && !idle.Set && maxRequests == nil {
		return nil
	}
	opts := &httpv3.HttpProtocolOptions{}
	explicit := &httpv3.HttpProtocolOptions_ExplicitHttpConfig{ProtocolConfig: &httpv3.HttpProtocolOptions_ExplicitHttpConfig_HttpProtocolOptions{}}
	if http2 {
		explicit.ProtocolConfig = &httpv3.HttpProtocolOptions_ExplicitHttpConfig_Http2ProtocolOptions{}
	}
	opts.UpstreamProtocolOptions = &httpv3.HttpProtocolOptions_ExplicitHttpConfig_{ExplicitHttpConfig: explicit}
	if idle.Set || maxRequests != nil {
		opts.CommonHttpProtocolOptions = &corev3.HttpProtocolOptions{IdleTimeout: envoyTimeout(idle)}
		if maxRequests != nil {
			opts.CommonHttpProtocolOptions.MaxRequestsPerConnection = wrapperspb.UInt32(*maxRequests)
		}
	}
	return map[string]*anypb.Any{"envoy.extensions.upstreams.http.v3.HttpProtocolOptions": mustAny(opts)}
}

// Contour's health-check defaults.
const (
	healthCheckTimeout            = 2 * time.Second
	healthCheckInterval           = 10 * time.Second
	healthCheckUnhealthyThreshold = 3
	healthCheckHealthyThreshold   = 2
	healthCheckHost               = "contour-envoy-healthcheck"
)

func httpHealthCheckConfig(c *dag.Cluster) *corev3.HealthCheck {
	hc := c.HealthCheck
	host := hc.Host
	if host == "" {
		host = healthCheckHost
	}
	codec := typev3.CodecClientType_HTTP1
	if c.Protocol == "h2" || c.Protocol == "h2c" {
		codec = typev3.CodecClientType_HTTP2
	}
	http := &corev3.HealthCheck_HttpHealthCheck{Path: hc.Path, Host: host, CodecClientType: codec}
	for _, r := range hc.ExpectedStatuses {
		http.ExpectedStatuses = append(http.ExpectedStatuses, &typev3.Int64Range{Start: r[0], End: r[1]})
	}
	return &corev3.HealthCheck{
		Timeout:            durationpb.New(cmp.Or(hc.Timeout, healthCheckTimeout)),
		Interval:           durationpb.New(cmp.Or(hc.Interval, healthCheckInterval)),
		UnhealthyThreshold: wrapperspb.UInt32(cmp.Or(hc.UnhealthyThreshold, healthCheckUnhealthyThreshold)),
		HealthyThreshold:   wrapperspb.UInt32(cmp.Or(hc.HealthyThreshold, healthCheckHealthyThreshold)),
		HealthChecker:      &corev3.HealthCheck_HttpHealthCheck_{HttpHealthCheck: http},
	}
}

func tcpHealthCheckConfig(hc *dag.TCPHealthCheck) *corev3.HealthCheck {
	return &corev3.HealthCheck{
		Timeout:            durationpb.New(cmp.Or(hc.Timeout, healthCheckTimeout)),
		Interval:           durationpb.New(cmp.Or(hc.Interval, healthCheckInterval)),
		UnhealthyThreshold: wrapperspb.UInt32(cmp.Or(hc.UnhealthyThreshold, healthCheckUnhealthyThreshold)),
		HealthyThreshold:   wrapperspb.UInt32(cmp.Or(hc.HealthyThreshold, healthCheckHealthyThreshold)),
		HealthChecker:      &corev3.HealthCheck_TcpHealthCheck_{TcpHealthCheck: &corev3.HealthCheck_TcpHealthCheck{}},
	}
}

// durationOrDefault is d, or def when d is 0.
func durationOrDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
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
func circuitBreakerThresholds(cb dag.CircuitBreakers) *clusterv3.CircuitBreakers {
	if cb == (dag.CircuitBreakers{}) {
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

// upstreamTLSTransportSocket speaks TLS 1.2-1.3 with Contour's ciphers to
// the upstream, with the given SNI and ALPN protocols, verifying its
// certificate when validation is set.
func upstreamTLSTransportSocket(sni string, validation *dag.UpstreamValidation, alpn ...string) *corev3.TransportSocket {
	ctx := upstreamTLSContext(sni, validation, alpn...)
	ctx.CommonTlsContext.TlsParams = &tlsv3.TlsParameters{
		TlsMinimumProtocolVersion: tlsv3.TlsParameters_TLSv1_2,
		TlsMaximumProtocolVersion: tlsv3.TlsParameters_TLSv1_3,
		CipherSuites:              defaultCipherSuites,
	}
	return upstreamTransportSocket(ctx)
}

// upstreamTLSWithoutParams leaves TLS versions and ciphers to Envoy, as
// Contour's extension clusters do.
func upstreamTLSWithoutParams(sni string, validation *dag.UpstreamValidation, alpn ...string) *corev3.TransportSocket {
	return upstreamTransportSocket(upstreamTLSContext(sni, validation, alpn...))
}

func upstreamTLSContext(sni string, validation *dag.UpstreamValidation, alpn ...string) *tlsv3.UpstreamTlsContext {
	ctx := &tlsv3.UpstreamTlsContext{
		CommonTlsContext: &tlsv3.CommonTlsContext{AlpnProtocols: alpn},
		Sni:              sni,
	}
	if v := validation; v != nil && len(v.CACert) > 0 && len(v.SubjectNames) > 0 {
		vc := &tlsv3.CertificateValidationContext{
			TrustedCa: &corev3.DataSource{Specifier: &corev3.DataSource_InlineBytes{InlineBytes: v.CACert}},
		}
		for _, san := range v.SubjectNames {
			vc.MatchTypedSubjectAltNames = append(vc.MatchTypedSubjectAltNames, &tlsv3.SubjectAltNameMatcher{
				SanType: tlsv3.SubjectAltNameMatcher_DNS,
				Matcher: &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: san}},
			})
		}
		ctx.CommonTlsContext.ValidationContextType = &tlsv3.CommonTlsContext_ValidationContext{ValidationContext: vc}
	}
	return ctx
}

func upstreamTransportSocket(ctx *tlsv3.UpstreamTlsContext) *corev3.TransportSocket {
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

// extensionCluster builds an ExtensionService's cluster: EDS with
// HTTP/2 (over TLS for h2) unless it speaks HTTP/1.1.
func extensionCluster(e *dag.ExtensionCluster) *clusterv3.Cluster {
	return ExtensionClusterWith(e, config.Defaults())
}

// ExtensionClusterWith is extensionCluster with the configuration's connect
// timeout and Envoy client certificate.
func ExtensionClusterWith(e *dag.ExtensionCluster, s *config.Settings) *clusterv3.Cluster {
	name := e.ClusterName()
	out := &clusterv3.Cluster{
		Name:                 name,
		AltStatName:          strings.ReplaceAll(name, "/", "_"),
		ConnectTimeout:       durationpb.New(durationOrDefault(s.ConnectTimeout, config.DefaultConnectTimeout)),
		CommonLbConfig:       &clusterv3.Cluster_CommonLbConfig{HealthyPanicThreshold: &typev3.Percent{Value: 0}},
		LbPolicy:             lbPolicy(e.LoadBalancerPolicy),
		ClusterDiscoveryType: &clusterv3.Cluster_Type{Type: clusterv3.Cluster_EDS},
		EdsClusterConfig:     &clusterv3.Cluster_EdsClusterConfig{EdsConfig: configSource(s), ServiceName: name},
		CircuitBreakers:      circuitBreakerThresholds(e.CircuitBreakers),
	}
	switch e.Protocol {
	case "h2":
		ctx := upstreamTLSContext(e.SNI, e.Validation, "h2")
		if cc := e.ClientCertificate; cc != nil {
			ctx.CommonTlsContext.TlsCertificateSdsSecretConfigs = []*tlsv3.SdsSecretConfig{{Name: dag.SecretName(cc), SdsConfig: configSource(s)}}
		}
		out.TransportSocket = upstreamTransportSocket(ctx)
		out.TypedExtensionProtocolOptions = httpProtocolOptions(true, e.IdleConnection)
	case "h2c":
		out.TypedExtensionProtocolOptions = httpProtocolOptions(true, e.IdleConnection)
	case "http/1.1":
		out.TypedExtensionProtocolOptions = explicitHTTP1Options(e.IdleConnection)
	}
	return out
}
