package envoy

// Builders for Envoy listeners and HTTP connection managers, as Contour's
// `contour serve` emits them with no configuration file (downstream TLS is in
// envoy_downstream_tls.go, the cookie-rewriting Lua in lua_cookie_rewrite.go).
// Pure functions: DAG-independent values in, one proto out.
//
// Private helpers in this file carry a "listener"/"hcm"/"downstream" flavour
// in their names so they do not collide with helpers in other files of the
// package.

import (
	"sync"
	"time"

	accesslogv3 "github.com/envoyproxy/go-control-plane/envoy/config/accesslog/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	fileaccesslogv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/access_loggers/file/v3"
	brotliv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/compression/brotli/compressor/v3"
	gzipv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/compression/gzip/compressor/v3"
	zstdv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/compression/zstd/compressor/v3"
	compressorv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/compressor/v3"
	corsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/cors/v3"
	grpcstatsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/grpc_stats/v3"
	grpcwebv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/grpc_web/v3"
	localratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/local_ratelimit/v3"
	luav3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/lua/v3"
	rbacv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/rbac/v3"
	routerv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/router/v3"
	tlsinspectorv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/listener/tls_inspector/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	runtimev3 "github.com/envoyproxy/go-control-plane/envoy/service/runtime/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/contourc/contourc/translate/config"
	"github.com/contourc/contourc/translate/dag"
)

// Names Envoy and Contour use for the extensions configured here. They are
// spelled out (rather than taken from go-control-plane's pkg/wellknown) so
// this file only needs the envoy API module.
const (
	listenerHCMFilterName          = "envoy.filters.network.http_connection_manager"
	listenerTLSInspectorName       = "envoy.filters.listener.tls_inspector"
	listenerTLSTransportSocketName = "envoy.transport_sockets.tls"
	listenerFileAccessLogName      = "envoy.access_loggers.file"

	// HTTP filter names as Contour spells them. Envoy identifies filters
	// by type URL; the names only have to match typed_per_filter_config
	// keys on routes (cors, local_ratelimit, lua, rbac, ...).
	hcmCompressorFilterName     = "envoy.filters.http.compressor"
	hcmGRPCWebFilterName        = "envoy.filters.http.grpc_web"
	hcmGRPCStatsFilterName      = "envoy.filters.http.grpc_stats"
	hcmCORSFilterName           = "envoy.filters.http.cors"
	hcmLocalRateLimitFilterName = "envoy.filters.http.local_ratelimit"
	hcmLuaFilterName            = "envoy.filters.http.lua"
	hcmRBACFilterName           = "envoy.filters.http.rbac"
	// Contour names the router of its own HCMs "router", but the router of
	// the static admin/stats HCMs "envoy.filters.http.router".
	hcmRouterFilterName    = "router"
	staticRouterFilterName = "envoy.filters.http.router"

	// The Lua filter's named script for cookie rewriting, and the key of
	// its rules in a route's LuaPerRoute filter_context. Route builders
	// select the script with LuaPerRoute{name: hcmCookieRewriteLuaName}
	// under the hcmLuaFilterName key of typed_per_filter_config.
	hcmCookieRewriteLuaName  = "cookie_rewrite.lua"
	hcmCookieRewriteRulesKey = "cookie_rewrite_rules"

	// The xDS server cluster Envoy's bootstrap defines for Contour.
	listenerContourXDSCluster = "contour"

	// Contour's defaults with no configuration file.
	hcmConnectionIdleTimeout = 60 * time.Second
	hcmAccessLogPath         = "/dev/stdout"
)

// configSource is the ConfigSource the resources embed for RDS, EDS and
// SDS: Contour's (xdsConfigSource), or ADS with Options.ADS.
func configSource(s *config.Settings) *corev3.ConfigSource {
	if s != nil && s.ADS {
		return adsConfigSource()
	}
	return xdsConfigSource()
}

// The config sources are built once and shared by every message that
// embeds one (a message is never modified once built): at 5,000
// HTTPProxies, 15,000 copies were 9 MB a render.
var (
	// xdsConfigSource is the ConfigSource Contour embeds for RDS/EDS/SDS:
	// api_config_source GRPC V3 to the "contour" cluster.
	xdsConfigSource = sync.OnceValue(func() *corev3.ConfigSource {
		return &corev3.ConfigSource{
			ConfigSourceSpecifier: &corev3.ConfigSource_ApiConfigSource{
				ApiConfigSource: &corev3.ApiConfigSource{
					ApiType:             corev3.ApiConfigSource_GRPC,
					TransportApiVersion: corev3.ApiVersion_V3,
					GrpcServices: []*corev3.GrpcService{{
						TargetSpecifier: &corev3.GrpcService_EnvoyGrpc_{
							EnvoyGrpc: &corev3.GrpcService_EnvoyGrpc{
								ClusterName: listenerContourXDSCluster,
								Authority:   listenerContourXDSCluster,
							},
						},
					}},
				},
			},
			ResourceApiVersion: corev3.ApiVersion_V3,
		}
	})
	// adsConfigSource is the ConfigSource of resources served over ADS.
	adsConfigSource = sync.OnceValue(func() *corev3.ConfigSource {
		return &corev3.ConfigSource{
			ConfigSourceSpecifier: &corev3.ConfigSource_Ads{Ads: &corev3.AggregatedConfigSource{}},
			ResourceApiVersion:    corev3.ApiVersion_V3,
		}
	})
)

// listenerSocketAddress is a TCP address. Contour sets ipv4_compat only for
// "::", which `contour serve` without configuration never uses.
func listenerSocketAddress(address string, port uint32) *corev3.Address {
	sa := &corev3.SocketAddress{
		Protocol:      corev3.SocketAddress_TCP,
		Address:       address,
		PortSpecifier: &corev3.SocketAddress_PortValue{PortValue: port},
	}
	if address == "::" {
		sa.Ipv4Compat = true
	}
	return &corev3.Address{Address: &corev3.Address_SocketAddress{SocketAddress: sa}}
}

// Linux socket option constants used by Contour's TCP keep-alive options.
const (
	listenerSolSocket   = 1 // SOL_SOCKET
	listenerSoKeepalive = 9 // SO_KEEPALIVE
	listenerIPProtoTCP  = 6 // IPPROTO_TCP
	listenerTCPKeepIdle = 4 // TCP_KEEPIDLE
	listenerTCPKeepIntv = 5 // TCP_KEEPINTVL
	listenerTCPKeepCnt  = 6 // TCP_KEEPCNT
)

// listenerKeepaliveSocketOptions are the four TCP keep-alive socket options
// Contour sets on every listener (its SocketOptions.TCPKeepalive): keep-alive
// on, 45s idle, 5s between probes, 9 probes.
func listenerKeepaliveSocketOptions() []*corev3.SocketOption {
	opt := func(desc string, level, name, value int64) *corev3.SocketOption {
		return &corev3.SocketOption{
			Description: desc,
			Level:       level,
			Name:        name,
			Value:       &corev3.SocketOption_IntValue{IntValue: value},
			State:       corev3.SocketOption_STATE_LISTENING,
		}
	}
	return []*corev3.SocketOption{
		opt("Enable TCP keep-alive", listenerSolSocket, listenerSoKeepalive, 1),
		opt("TCP keep-alive initial idle time", listenerIPProtoTCP, listenerTCPKeepIdle, 45),
		opt("TCP keep-alive time between probes", listenerIPProtoTCP, listenerTCPKeepIntv, 5),
		opt("TCP keep-alive probe count", listenerIPProtoTCP, listenerTCPKeepCnt, 9),
	}
}

// Paths Contour exposes from Envoy's admin interface (AdminListener and the
// combined stats-health listener of StatsListeners).
var (
	envoyAdminPaths = []string{
		"/certs", "/clusters", "/listeners", "/config_dump", "/memory", "/ready",
		"/runtime", "/server_info", "/stats", "/stats/prometheus", "/stats/recentlookups",
	}
	statsHealthPaths = []string{"/ready", "/stats", "/stats/prometheus"}
)

// staticListeners returns the stats-health (0.0.0.0:8002) and envoy-admin
// (127.0.0.1:9001) listeners, sorted by name (envoy-admin first).
func staticListeners() []*listenerv3.Listener {
	return []*listenerv3.Listener{
		adminProxyListener("envoy-admin", "envoy-admin", "127.0.0.1", 9001, envoyAdminPaths),
		adminProxyListener("stats-health", "stats", "0.0.0.0", 8002, statsHealthPaths),
	}
}

// adminProxyListener reproduces Contour's static listeners that proxy a set
// of GET-only paths to the "envoy-admin" cluster with an inline route
// configuration; they ignore the global connection limit.
func adminProxyListener(name, statPrefix, address string, port uint32, paths []string) *listenerv3.Listener {
	hcm := &hcmv3.HttpConnectionManager{
		StatPrefix: statPrefix,
		RouteSpecifier: &hcmv3.HttpConnectionManager_RouteConfig{
			RouteConfig: adminRouteConfig(paths),
		},
		HttpFilters:   []*hcmv3.HttpFilter{hcmRouterFilter(staticRouterFilterName)},
		NormalizePath: wrapperspb.Bool(true),
	}
	return &listenerv3.Listener{
		Name:    name,
		Address: listenerSocketAddress(address, port),
		FilterChains: []*listenerv3.FilterChain{{
			Filters: []*listenerv3.Filter{hcmNetworkFilter(hcm)},
		}},
		SocketOptions:         listenerKeepaliveSocketOptions(),
		IgnoreGlobalConnLimit: true,
	}
}

// adminRouteConfig is Contour's routeForAdminInterface: one virtual host
// "backend" for "*" with, per path, an exact path match restricted to the
// GET method (case-insensitive) routed to the envoy-admin cluster.
func adminRouteConfig(paths []string) *routev3.RouteConfiguration {
	vh := &routev3.VirtualHost{Name: "backend", Domains: []string{"*"}}
	for _, p := range paths {
		vh.Routes = append(vh.Routes, &routev3.Route{
			Match: &routev3.RouteMatch{
				PathSpecifier: &routev3.RouteMatch_Path{Path: p},
				Headers: []*routev3.HeaderMatcher{{
					Name: ":method",
					HeaderMatchSpecifier: &routev3.HeaderMatcher_StringMatch{
						StringMatch: &matcherv3.StringMatcher{
							MatchPattern: &matcherv3.StringMatcher_Exact{Exact: "GET"},
							IgnoreCase:   true,
						},
					},
				}},
			},
			Action: &routev3.Route_Route{
				Route: &routev3.RouteAction{
					ClusterSpecifier: &routev3.RouteAction_Cluster{Cluster: "envoy-admin"},
				},
			},
		})
	}
	return &routev3.RouteConfiguration{VirtualHosts: []*routev3.VirtualHost{vh}}
}

// hcmNetworkFilter wraps an HttpConnectionManager as a network filter.
func hcmNetworkFilter(hcm *hcmv3.HttpConnectionManager) *listenerv3.Filter {
	return hcmPackedFilter(mustAny(hcm))
}

// hcmPackedFilter is hcmNetworkFilter for a manager packed already.
func hcmPackedFilter(packed *anypb.Any) *listenerv3.Filter {
	return &listenerv3.Filter{
		Name:       listenerHCMFilterName,
		ConfigType: &listenerv3.Filter_TypedConfig{TypedConfig: packed},
	}
}

// hcmHTTPFilter is an HTTP filter with a typed config.
func hcmHTTPFilter(name string, cfg proto.Message) *hcmv3.HttpFilter {
	return &hcmv3.HttpFilter{
		Name:       name,
		ConfigType: &hcmv3.HttpFilter_TypedConfig{TypedConfig: mustAny(cfg)},
	}
}

// sharedRouterFilter is the connection managers' router filter, built once
// and shared like the default filters.
var sharedRouterFilter = sync.OnceValue(func() *hcmv3.HttpFilter { return hcmRouterFilter(hcmRouterFilterName) })

// hcmRouterFilter is the terminal router filter under the given name.
func hcmRouterFilter(name string) *hcmv3.HttpFilter {
	return hcmHTTPFilter(name, &routerv3.Router{})
}

// hcmOptions are the variations of Contour's HTTP connection manager.
type hcmOptions struct {
	// secure puts the misdirected-request Lua filter first (Contour does
	// this on every per-SNI HTTPS filter chain, not on the fallback one).
	secure bool
	// fallback is the fallback-certificate chain's manager: no codec from
	// default-http-versions, the HTTPS access log.
	fallback bool
	// websockets adds upgrade_configs [{upgrade_type: websocket}]; Contour
	// enables it on Gateway API listeners (dag.Listener.EnableWebsockets),
	// not on ingress_http/ingress_https.
	websockets bool
	// extraFilters are appended after the default filters and before the
	// router, in order, as Contour's AddFilter does (jwt_authn, then
	// ext_authz); the global ratelimit filter follows them.
	extraFilters []*hcmv3.HttpFilter
	// forwardClientCert sanitises and sets x-forwarded-client-cert with
	// the selected client certificate details (HTTPProxy clientValidation).
	forwardClientCert *dag.ForwardClientCert
	// settings are the configuration's; nil is Contour's defaults.
	settings *config.Settings
	// unpacked remembers the manager packed in the filter.
	unpacked *Unpacked
	// packer packs it, nil to marshal it whole.
	packer *hcmPacker
}

// httpConnectionManager returns the envoy.filters.network.http_connection_manager
// filter with RDS route_config_name, stat_prefix, the default HTTP filter
// chain, and, when secure, the misdirected-request Lua filter first.
func httpConnectionManager(statPrefix, routeConfigName string, secure bool) *listenerv3.Filter {
	return httpConnectionManagerWith(statPrefix, routeConfigName, hcmOptions{secure: secure})
}

// httpConnectionManagerWith is httpConnectionManager with the variations of
// hcmOptions and the configuration's settings.
func httpConnectionManagerWith(statPrefix, routeConfigName string, o hcmOptions) *listenerv3.Filter {
	if o.settings == nil {
		o.settings = config.Defaults()
	}
	rds := &hcmv3.HttpConnectionManager_Rds{Rds: &hcmv3.Rds{
		ConfigSource:    configSource(o.settings),
		RouteConfigName: routeConfigName,
	}}
	hcm, packed := o.packer.manager(statPrefix, o, rds)
	o.unpacked.remember(packed, hcm)
	return hcmPackedFilter(packed)
}

// hcmWithoutRoutes is the connection manager of httpConnectionManagerWith
// but for its route specifier.
func hcmWithoutRoutes(statPrefix string, o hcmOptions) *hcmv3.HttpConnectionManager {
	s := o.settings
	var filters []*hcmv3.HttpFilter
	if o.secure {
		filters = append(filters, misdirectedRequestLuaFilter())
	}
	filters = append(filters, hcmDefaultFiltersFor(s.Compression)...)
	filters = append(filters, o.extraFilters...)
	if f := globalRateLimitFilter(s.RateLimitService, s.RateLimitExtension); f != nil {
		filters = append(filters, f)
	}
	filters = append(filters, sharedRouterFilter())

	t := s.Timeouts
	hcm := &hcmv3.HttpConnectionManager{
		StatPrefix:  statPrefix,
		HttpFilters: filters,
		CommonHttpProtocolOptions: &corev3.HttpProtocolOptions{
			IdleTimeout: envoyTimeout(t.ConnectionIdleTimeout),
		},
		// accept_http_10: HTTP/1.0 requests with a Host header (Contour #537).
		HttpProtocolOptions: &corev3.Http1ProtocolOptions{
			AcceptHttp_10:      true,
			AllowChunkedLength: s.AllowChunkedLength,
		},
		AccessLog:                  hcmAccessLogs(s, o.secure || o.fallback),
		UseRemoteAddress:           wrapperspb.Bool(true),
		XffNumTrustedHops:          s.XffNumTrustedHops,
		StripTrailingHostDot:       s.StripTrailingHostDot,
		PreserveExternalRequestId:  true,
		NormalizePath:              wrapperspb.Bool(true),
		MergeSlashes:               s.MergeSlashes,
		ServerHeaderTransformation: serverHeaderTransformation(s.ServerHeaderTransformation),
		RequestTimeout:             envoyTimeout(t.RequestTimeout),
		StreamIdleTimeout:          envoyTimeout(t.StreamIdleTimeout),
		DrainTimeout:               envoyTimeout(t.ConnectionShutdownGracePeriod),
		DelayedCloseTimeout:        envoyTimeout(t.DelayedCloseTimeout),
		Tracing:                    hcmTracing(s.Tracing, s.TracingExtension),
	}
	if !o.fallback {
		hcm.CodecType = codecForVersions(s.DefaultHTTPVersions)
	}
	// Envoy's max_connection_duration is off unless set: 0 would not
	// disable it, so infinity is left out too.
	if d := t.MaxConnectionDuration; d.Set && !d.Disabled {
		hcm.CommonHttpProtocolOptions.MaxConnectionDuration = durationpb.New(d.Duration)
	}
	if f := o.forwardClientCert; f != nil {
		hcm.ForwardClientCertDetails = hcmv3.HttpConnectionManager_SANITIZE_SET
		hcm.SetCurrentClientCertDetails = &hcmv3.HttpConnectionManager_SetCurrentClientCertDetails{
			Subject: wrapperspb.Bool(f.Subject), Cert: f.Cert, Chain: f.Chain, Dns: f.DNS, Uri: f.URI,
		}
	}
	if s.MaxRequestsPerConnection != nil {
		hcm.CommonHttpProtocolOptions.MaxRequestsPerConnection = wrapperspb.UInt32(*s.MaxRequestsPerConnection)
	}
	if s.HTTP2MaxConcurrentStreams != nil {
		hcm.Http2ProtocolOptions = &corev3.Http2ProtocolOptions{MaxConcurrentStreams: wrapperspb.UInt32(*s.HTTP2MaxConcurrentStreams)}
	}
	if o.websockets {
		hcm.UpgradeConfigs = []*hcmv3.HttpConnectionManager_UpgradeConfig{{UpgradeType: "websocket"}}
	}
	return hcm
}

// serverHeaderTransformation maps Contour's setting; overwrite is Envoy's
// default (the zero value).
func serverHeaderTransformation(v string) hcmv3.HttpConnectionManager_ServerHeaderTransformation {
	switch v {
	case "append_if_absent":
		return hcmv3.HttpConnectionManager_APPEND_IF_ABSENT
	case "pass_through":
		return hcmv3.HttpConnectionManager_PASS_THROUGH
	}
	return hcmv3.HttpConnectionManager_OVERWRITE
}

// codecForVersions is HTTP1 or HTTP2 when only that version is wanted,
// else AUTO.
func codecForVersions(versions []string) hcmv3.HttpConnectionManager_CodecType {
	wanted := map[string]bool{}
	for _, v := range versions {
		wanted[v] = true
	}
	if len(wanted) == 1 {
		if wanted["http/2"] {
			return hcmv3.HttpConnectionManager_HTTP2
		}
		return hcmv3.HttpConnectionManager_HTTP1
	}
	return hcmv3.HttpConnectionManager_AUTO
}

// alpnForVersions is the ALPN protocols for the wanted versions, h2 first.
func alpnForVersions(versions []string) []string {
	wanted := map[string]bool{}
	for _, v := range versions {
		wanted[v] = true
	}
	if len(wanted) == 0 {
		return []string{"h2", "http/1.1"}
	}
	var out []string
	if wanted["http/2"] {
		out = append(out, "h2")
	}
	if wanted["http/1.1"] {
		out = append(out, "http/1.1")
	}
	return out
}

// hcmStdoutAccessLog is Contour's default (envoy format) file access log.
func hcmStdoutAccessLog() *accesslogv3.AccessLog {
	return &accesslogv3.AccessLog{
		Name: listenerFileAccessLogName,
		ConfigType: &accesslogv3.AccessLog_TypedConfig{
			TypedConfig: mustAny(&fileaccesslogv3.FileAccessLog{Path: hcmAccessLogPath}),
		},
	}
}

// hcmCompressedContentTypes are the content types Contour's gzip compressor
// filter compresses: Envoy's defaults plus the gRPC-Web types.
var hcmCompressedContentTypes = []string{
	"text/html", "text/plain", "text/css", "application/javascript", "application/x-javascript",
	"text/javascript", "text/x-javascript", "text/ecmascript", "text/js", "text/jscript",
	"text/x-js", "application/ecmascript", "application/x-json", "application/xml",
	"application/json", "image/svg+xml", "text/xml", "application/xhtml+xml",
	"application/grpc-web", "application/grpc-web+proto", "application/grpc-web+json", "application/grpc-web+thrift",
	"application/grpc-web-text", "application/grpc-web-text+proto", "application/grpc-web-text+thrift",
}

// hcmDefaultFilters are Contour's DefaultFilters without the router:
// gzip compressor, grpc_web, grpc_stats, cors, local_ratelimit (no bucket,
// so only per-vhost/route config enables it), the cookie-rewrite Lua
// library, and an empty rbac (enabled per route).
func hcmDefaultFilters() []*hcmv3.HttpFilter { return hcmDefaultFiltersFor("gzip") }

// The default filters of each compression algorithm are built once:
// every HTTP connection manager has the same ones, and building them (each
// packed in an Any) once per filter chain was a tenth of the translation at
// 5,000 virtual hosts. They are constants, as sharedRouterFilter is, built
// on first use, and one of four whatever the configuration says, so they
// stay package-level. They are shared, so they must not be changed: they
// are only ever packed into a manager's own Any.
var (
	gzipDefaultFilters         = sync.OnceValue(func() []*hcmv3.HttpFilter { return buildDefaultFilters("gzip") })
	brotliDefaultFilters       = sync.OnceValue(func() []*hcmv3.HttpFilter { return buildDefaultFilters("brotli") })
	zstdDefaultFilters         = sync.OnceValue(func() []*hcmv3.HttpFilter { return buildDefaultFilters("zstd") })
	uncompressedDefaultFilters = sync.OnceValue(func() []*hcmv3.HttpFilter { return buildDefaultFilters("disabled") })
)

// hcmDefaultFiltersFor is hcmDefaultFilters with the configured compression
// algorithm: gzip, brotli, zstd, or disabled (no compressor filter); any
// other is gzip, as in buildDefaultFilters.
func hcmDefaultFiltersFor(algorithm string) []*hcmv3.HttpFilter {
	switch algorithm {
	case "brotli":
		return brotliDefaultFilters()
	case "zstd":
		return zstdDefaultFilters()
	case "disabled":
		return uncompressedDefaultFilters()
	}
	return gzipDefaultFilters()
}

func buildDefaultFilters(algorithm string) []*hcmv3.HttpFilter {
	var library proto.Message
	switch algorithm {
	case "brotli":
		library = &brotliv3.Brotli{}
	case "zstd":
		library = &zstdv3.Zstd{}
	case "disabled":
	default:
		algorithm, library = "gzip", &gzipv3.Gzip{}
	}
	var out []*hcmv3.HttpFilter
	if library != nil {
		out = append(out, hcmHTTPFilter(hcmCompressorFilterName, &compressorv3.Compressor{
			CompressorLibrary: &corev3.TypedExtensionConfig{
				Name:        algorithm,
				TypedConfig: mustAny(library),
			},
			ResponseDirectionConfig: &compressorv3.Compressor_ResponseDirectionConfig{
				CommonConfig: &compressorv3.Compressor_CommonDirectionConfig{
					ContentType: append([]string(nil), hcmCompressedContentTypes...),
				},
			},
		}))
	}
	return append(out, []*hcmv3.HttpFilter{
		hcmHTTPFilter(hcmGRPCWebFilterName, &grpcwebv3.GrpcWeb{}),
		hcmHTTPFilter(hcmGRPCStatsFilterName, &grpcstatsv3.FilterConfig{
			EmitFilterState:     true,
			EnableUpstreamStats: true,
		}),
		hcmHTTPFilter(hcmCORSFilterName, &corsv3.Cors{}),
		hcmHTTPFilter(hcmLocalRateLimitFilterName, &localratelimitv3.LocalRateLimit{StatPrefix: "http"}),
		hcmHTTPFilter(hcmLuaFilterName, &luav3.Lua{
			SourceCodes: map[string]*corev3.DataSource{
				hcmCookieRewriteLuaName: {
					Specifier: &corev3.DataSource_InlineString{InlineString: cookieRewriteLua},
				},
			},
		}),
		hcmHTTPFilter(hcmRBACFilterName, &rbacv3.RBAC{}),
	}...)
}

// misdirectedRequestLuaFilter is the Lua filter Contour puts first on each
// per-SNI HTTPS connection manager: it answers 421 when :authority does not
// name the TLS server name (RFC 7540 9.1.2 connection reuse).
// Like the default filters, it is built once and shared.
var misdirectedRequestLuaFilter = sync.OnceValue(func() *hcmv3.HttpFilter {
	return hcmHTTPFilter(hcmLuaFilterName, &luav3.Lua{
		DefaultSourceCode: &corev3.DataSource{
			Specifier: &corev3.DataSource_InlineString{InlineString: misdirectedRequestLua},
		},
	})
})

// plainListener returns a listener on address:port with one filter chain
// holding filters, and Contour's TCP keep-alive socket options.
func plainListener(name, address string, port uint32, filters ...*listenerv3.Filter) *listenerv3.Listener {
	l := &listenerv3.Listener{
		Name:          name,
		Address:       listenerSocketAddress(address, port),
		SocketOptions: listenerKeepaliveSocketOptions(),
	}
	// Contour's envoy_v3.Listener adds a filter chain only when there are filters.
	if len(filters) > 0 {
		l.FilterChains = []*listenerv3.FilterChain{{Filters: filters}}
	}
	return l
}

// tlsListener returns a listener with the tls_inspector listener filter and
// the given filter chains (already sorted by the caller).
func tlsListener(name, address string, port uint32, chains []*listenerv3.FilterChain) *listenerv3.Listener {
	return &listenerv3.Listener{
		Name:    name,
		Address: listenerSocketAddress(address, port),
		ListenerFilters: []*listenerv3.ListenerFilter{{
			Name: listenerTLSInspectorName,
			ConfigType: &listenerv3.ListenerFilter_TypedConfig{
				TypedConfig: mustAny(&tlsinspectorv3.TlsInspector{}),
			},
		}},
		FilterChains:  chains,
		SocketOptions: listenerKeepaliveSocketOptions(),
	}
}

// runtimeLayer returns Contour's RTDS layer "dynamic".
func runtimeLayer() *runtimev3.Runtime {
	// Contour raises RE2's program-size error threshold to 1 MiB and
	// keeps the warning threshold at 1000.
	return &runtimev3.Runtime{
		Name: "dynamic",
		Layer: &structpb.Struct{Fields: map[string]*structpb.Value{
			"re2.max_program_size.error_level": structpb.NewNumberValue(1 << 20),
			"re2.max_program_size.warn_level":  structpb.NewNumberValue(1000),
		}},
	}
}
