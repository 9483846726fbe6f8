package envoy

import (
	"sort"
	"strings"

	accesslogv3 "github.com/envoyproxy/go-control-plane/envoy/config/accesslog/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	ratelimitconfv3 "github.com/envoyproxy/go-control-plane/envoy/config/ratelimit/v3"
	tracev3 "github.com/envoyproxy/go-control-plane/envoy/config/trace/v3"
	fileaccesslogv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/access_loggers/file/v3"
	ratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ratelimit/v3"
	proxyprotocolv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/listener/proxy_protocol/v3"
	tlsinspectorv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/listener/tls_inspector/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	metadataformatterv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/formatter/metadata/v3"
	reqwithoutqueryv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/formatter/req_without_query/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	runtimev3 "github.com/envoyproxy/go-control-plane/envoy/service/runtime/v3"
	tracingtypev3 "github.com/envoyproxy/go-control-plane/envoy/type/tracing/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	contourv1alpha1 "github.com/projectcontour/contour/apis/projectcontour/v1alpha1"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/contourc/contourc/translate/config"
	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/dag/index"
)

// Envoy forms of the configuration's settings: access logs, listener
// filters and tuning, the global rate limit filter, tracing, the static
// listeners and the runtime layer.

// hcmAccessLogs are the HTTP (or, secure, HTTPS) connection managers' and
// TCP proxies' access logs: none when disabled.
func hcmAccessLogs(s *config.Settings, secure bool) []*accesslogv3.AccessLog {
	if s.AccessLogLevel == "disabled" {
		return nil
	}
	path := s.HTTPAccessLog
	if secure {
		path = s.HTTPSAccessLog
	}
	fal := &fileaccesslogv3.FileAccessLog{Path: path}
	switch s.AccessLogFormat {
	case "json":
		fields := s.AccessLogJSONFields
		if fields == nil {
			fields = contourv1alpha1.DefaultAccessLogJSONFields
		}
		format := &structpb.Struct{Fields: map[string]*structpb.Value{}}
		for k, v := range contourv1alpha1.AccessLogJSONFields(fields).AsFieldMap() {
			format.Fields[k] = structpb.NewStringValue(v)
		}
		fal.AccessLogFormat = &fileaccesslogv3.FileAccessLog_LogFormat{LogFormat: &corev3.SubstitutionFormatString{
			Format:          &corev3.SubstitutionFormatString_JsonFormat{JsonFormat: format},
			OmitEmptyValues: true,
			Formatters:      accessLogFormatters(s),
		}}
	default:
		if s.AccessLogFormatString != "" {
			fal.AccessLogFormat = &fileaccesslogv3.FileAccessLog_LogFormat{LogFormat: &corev3.SubstitutionFormatString{
				Format: &corev3.SubstitutionFormatString_TextFormatSource{TextFormatSource: &corev3.DataSource{
					Specifier: &corev3.DataSource_InlineString{InlineString: s.AccessLogFormatString},
				}},
				Formatters: accessLogFormatters(s),
			}}
		}
	}
	al := &accesslogv3.AccessLog{
		Name:       listenerFileAccessLogName,
		ConfigType: &accesslogv3.AccessLog_TypedConfig{TypedConfig: mustAny(fal)},
	}
	switch s.AccessLogLevel {
	case "error":
		al.Filter = accessLogErrorsOnly(300)
	case "critical":
		al.Filter = accessLogErrorsOnly(500)
	}
	return []*accesslogv3.AccessLog{al}
}

// accessLogFormatters are the formatter extensions the format's operators
// need. Contour lists them in map order; contourc sorts them by name.
func accessLogFormatters(s *config.Settings) []*corev3.TypedExtensionConfig {
	logging := contourv1alpha1.EnvoyLogging{
		AccessLogFormat:       contourv1alpha1.AccessLogType(s.AccessLogFormat),
		AccessLogFormatString: s.AccessLogFormatString,
		AccessLogJSONFields:   s.AccessLogJSONFields,
	}
	if logging.AccessLogFormat == contourv1alpha1.JSONAccessLog && logging.AccessLogJSONFields == nil {
		logging.AccessLogJSONFields = contourv1alpha1.DefaultAccessLogJSONFields
	}
	names := logging.AccessLogFormatterExtensions()
	sort.Strings(names)
	var out []*corev3.TypedExtensionConfig
	for _, n := range names {
		switch n {
		case "envoy.formatter.req_without_query":
			out = append(out, &corev3.TypedExtensionConfig{Name: n, TypedConfig: mustAny(&reqwithoutqueryv3.ReqWithoutQuery{})})
		case "envoy.formatter.metadata":
			out = append(out, &corev3.TypedExtensionConfig{Name: n, TypedConfig: mustAny(&metadataformatterv3.Metadata{})})
		}
	}
	return out
}

// accessLogErrorsOnly logs responses with a status of at least min (a
// runtime-overridable threshold) or with response flags.
func accessLogErrorsOnly(min uint32) *accesslogv3.AccessLogFilter {
	return &accesslogv3.AccessLogFilter{FilterSpecifier: &accesslogv3.AccessLogFilter_OrFilter{OrFilter: &accesslogv3.OrFilter{
		Filters: []*accesslogv3.AccessLogFilter{
			{FilterSpecifier: &accesslogv3.AccessLogFilter_StatusCodeFilter{StatusCodeFilter: &accesslogv3.StatusCodeFilter{
				Comparison: &accesslogv3.ComparisonFilter{
					Op:    accesslogv3.ComparisonFilter_GE,
					Value: &corev3.RuntimeUInt32{DefaultValue: min, RuntimeKey: "contour.accesslog.filter.status_code"},
				},
			}}},
			{FilterSpecifier: &accesslogv3.AccessLogFilter_ResponseFlagFilter{ResponseFlagFilter: &accesslogv3.ResponseFlagFilter{}}},
		},
	}}}
}

// globalRateLimitFilter is the envoy.filters.http.ratelimit filter of the
// configuration's rate limit service, on every HTTP connection manager.
func globalRateLimitFilter(r *config.RateLimitSettings, ext *config.ExtensionRef) *hcmv3.HttpFilter {
	if r == nil || ext == nil {
		return nil
	}
	headers := ratelimitv3.RateLimit_OFF
	if r.EnableXRateLimitHeaders {
		headers = ratelimitv3.RateLimit_DRAFT_VERSION_03
	}
	return hcmHTTPFilter("envoy.filters.http.ratelimit", &ratelimitv3.RateLimit{
		Domain:          r.Domain,
		Timeout:         envoyTimeout(ext.Timeout),
		FailureModeDeny: !r.FailOpen,
		RateLimitService: &ratelimitconfv3.RateLimitServiceConfig{
			GrpcService:         grpcService(ext.ClusterName, ext.SNI, dag.Timeout{}),
			TransportApiVersion: corev3.ApiVersion_V3,
		},
		EnableXRatelimitHeaders:        headers,
		RateLimitedAsResourceExhausted: r.EnableResourceExhaustedCode,
	})
}

// hcmTracing is the OpenTelemetry tracing of every HTTP connection manager.
func hcmTracing(t *config.TracingSettings, ext *config.ExtensionRef) *hcmv3.HttpConnectionManager_Tracing {
	if t == nil || ext == nil {
		return nil
	}
	var tags []*tracingtypev3.CustomTag
	all := t.CustomTags
	if t.IncludePodDetail {
		all = append([]config.TracingTag{{TagName: "podName", Environment: "HOSTNAME"}, {TagName: "podNamespace", Environment: "CONTOUR_NAMESPACE"}}, all...)
	}
	for _, tag := range all {
		switch {
		case tag.Literal != "":
			tags = append(tags, &tracingtypev3.CustomTag{Tag: tag.TagName, Type: &tracingtypev3.CustomTag_Literal_{Literal: &tracingtypev3.CustomTag_Literal{Value: tag.Literal}}})
		case tag.Environment != "":
			tags = append(tags, &tracingtypev3.CustomTag{Tag: tag.TagName, Type: &tracingtypev3.CustomTag_Environment_{Environment: &tracingtypev3.CustomTag_Environment{Name: tag.Environment}}})
		case tag.RequestHeaderName != "":
			tags = append(tags, &tracingtypev3.CustomTag{Tag: tag.TagName, Type: &tracingtypev3.CustomTag_RequestHeader{RequestHeader: &tracingtypev3.CustomTag_Header{Name: tag.RequestHeaderName}}})
		}
	}
	return &hcmv3.HttpConnectionManager_Tracing{
		OverallSampling:  &typev3.Percent{Value: t.OverallSampling},
		ClientSampling:   &typev3.Percent{Value: t.ClientSampling},
		RandomSampling:   &typev3.Percent{Value: t.RandomSampling},
		MaxPathTagLength: wrapperspb.UInt32(t.MaxPathTagLength),
		CustomTags:       tags,
		Provider: &tracev3.Tracing_Http{
			Name: "envoy.tracers.opentelemetry",
			ConfigType: &tracev3.Tracing_Http_TypedConfig{TypedConfig: mustAny(&tracev3.OpenTelemetryConfig{
				GrpcService: grpcService(ext.ClusterName, ext.SNI, ext.Timeout),
				ServiceName: t.ServiceName,
			})},
		},
		SpawnUpstreamSpan: wrapperspb.Bool(true),
	}
}

// proxyProtocolFilter is the PROXY protocol listener filter.
func proxyProtocolFilter() *listenerv3.ListenerFilter {
	return &listenerv3.ListenerFilter{
		Name:       "envoy.filters.listener.proxy_protocol",
		ConfigType: &listenerv3.ListenerFilter_TypedConfig{TypedConfig: mustAny(&proxyprotocolv3.ProxyProtocol{})},
	}
}

// tlsInspectorFilter is the TLS inspector with optional JA3/JA4
// fingerprinting.
func tlsInspectorFilter(ja3, ja4 bool) *listenerv3.ListenerFilter {
	ti := &tlsinspectorv3.TlsInspector{}
	if ja3 {
		ti.EnableJa3Fingerprinting = wrapperspb.Bool(true)
	}
	if ja4 {
		ti.EnableJa4Fingerprinting = wrapperspb.Bool(true)
	}
	return &listenerv3.ListenerFilter{
		Name:       listenerTLSInspectorName,
		ConfigType: &listenerv3.ListenerFilter_TypedConfig{TypedConfig: mustAny(ti)},
	}
}

// Linux socket options for the TOS and traffic class settings.
const (
	listenerIPProtoIP   = 0  // IPPROTO_IP
	listenerIPTOS       = 1  // IP_TOS
	listenerIPProtoIPv6 = 41 // IPPROTO_IPV6
	listenerIPv6TClass  = 67 // IPV6_TCLASS
)

// dynamicListenerSocketOptions are the keep-alive options plus the
// configured TOS and traffic class.
func dynamicListenerSocketOptions(s *config.Settings) []*corev3.SocketOption {
	out := listenerKeepaliveSocketOptions()
	if s.TOS != 0 {
		out = append(out, &corev3.SocketOption{Description: "Set IPv4 TOS field", Level: listenerIPProtoIP, Name: listenerIPTOS,
			State: corev3.SocketOption_STATE_LISTENING, Value: &corev3.SocketOption_IntValue{IntValue: int64(s.TOS)}})
	}
	if s.TrafficClass != 0 {
		out = append(out, &corev3.SocketOption{Description: "Set IPv6 Traffic Class field", Level: listenerIPProtoIPv6, Name: listenerIPv6TClass,
			State: corev3.SocketOption_STATE_LISTENING, Value: &corev3.SocketOption_IntValue{IntValue: int64(s.TrafficClass)}})
	}
	return out
}

// tuneListener applies the settings every dynamic listener gets: socket
// options, buffer limit, connection balancer, connections per socket event.
func tuneListener(l *listenerv3.Listener, s *config.Settings) *listenerv3.Listener {
	l.SocketOptions = dynamicListenerSocketOptions(s)
	if s.PerConnectionBufferLimitBytes != nil {
		l.PerConnectionBufferLimitBytes = wrapperspb.UInt32(*s.PerConnectionBufferLimitBytes)
	}
	if s.ConnectionBalancer == "exact" {
		l.ConnectionBalanceConfig = &listenerv3.Listener_ConnectionBalanceConfig{
			BalanceType: &listenerv3.Listener_ConnectionBalanceConfig_ExactBalance_{ExactBalance: &listenerv3.Listener_ConnectionBalanceConfig_ExactBalance{}},
		}
	}
	if s.MaxConnectionsToAcceptPerSocketEvent != nil {
		l.MaxConnectionsToAcceptPerSocketEvent = wrapperspb.UInt32(*s.MaxConnectionsToAcceptPerSocketEvent)
	}
	return l
}

// staticListenersFor are Contour's stats/health listeners and the admin
// listener for the settings, sorted by name.
func staticListenersFor(s *config.Settings) []*listenerv3.Listener {
	var out []*listenerv3.Listener
	m, h := s.Metrics, s.Health
	switch {
	case m.TLS:
		l := adminProxyListener("stats", "stats", m.Address, uint32(m.Port), []string{"/stats", "/stats/prometheus"})
		l.FilterChains[0].TransportSocket = &corev3.TransportSocket{
			Name:       listenerTLSTransportSocketName,
			ConfigType: &corev3.TransportSocket_TypedConfig{TypedConfig: mustAny(metricsTLSContext(s, m.CAFile != ""))},
		}
		out = append(out, l, adminProxyListener("health", "stats", h.Address, uint32(h.Port), []string{"/ready"}))
	case m.AddressPort == h:
		out = append(out, adminProxyListener("stats-health", "stats", m.Address, uint32(m.Port), statsHealthPaths))
	default:
		out = append(out,
			adminProxyListener("stats", "stats", m.Address, uint32(m.Port), []string{"/stats", "/stats/prometheus"}),
			adminProxyListener("health", "stats", h.Address, uint32(h.Port), []string{"/ready"}))
	}
	if om := s.OMEnforcedHealth; om != nil {
		l := adminProxyListener("health-om-enforced", "stats", om.Address, uint32(om.Port), []string{"/ready"})
		l.IgnoreGlobalConnLimit = false
		out = append(out, l)
	}
	if s.EnvoyAdminPort > 0 {
		out = append(out, adminProxyListener("envoy-admin", "envoy-admin", "127.0.0.1", uint32(s.EnvoyAdminPort), envoyAdminPaths))
	}
	index.SortByName(out, func(l *listenerv3.Listener) string { return l.Name })
	return out
}

// SDS names of the metrics listener's certificate and CA bundle.
const (
	metricsServerCertSDSName = "metrics-tls-certificate"
	metricsCABundleSDSName   = "metrics-ca-certificate"
)

// metricsTLSContext serves the metrics listener over TLS 1.3 with the
// certificate (and client CA) Envoy reads from files.
func metricsTLSContext(s *config.Settings, clientValidation bool) *tlsv3.DownstreamTlsContext {
	ctx := &tlsv3.DownstreamTlsContext{CommonTlsContext: &tlsv3.CommonTlsContext{
		TlsParams: &tlsv3.TlsParameters{
			TlsMinimumProtocolVersion: tlsv3.TlsParameters_TLSv1_3,
			TlsMaximumProtocolVersion: tlsv3.TlsParameters_TLSv1_3,
		},
		TlsCertificateSdsSecretConfigs: []*tlsv3.SdsSecretConfig{{Name: metricsServerCertSDSName, SdsConfig: configSource(s)}},
	}}
	if clientValidation {
		ctx.CommonTlsContext.ValidationContextType = &tlsv3.CommonTlsContext_ValidationContextSdsSecretConfig{
			ValidationContextSdsSecretConfig: &tlsv3.SdsSecretConfig{Name: metricsCABundleSDSName, SdsConfig: configSource(s)},
		}
		ctx.RequireClientCertificate = wrapperspb.Bool(true)
	}
	return ctx
}

// MetricsSecrets are the file-backed SDS secrets of the metrics listener.
func MetricsSecrets(m config.MetricsSettings) []*tlsv3.Secret {
	if !m.TLS {
		return nil
	}
	file := func(name string) *corev3.DataSource {
		return &corev3.DataSource{Specifier: &corev3.DataSource_Filename{Filename: name}}
	}
	var out []*tlsv3.Secret
	if m.CertFile != "" && m.KeyFile != "" {
		out = append(out, &tlsv3.Secret{Name: metricsServerCertSDSName, Type: &tlsv3.Secret_TlsCertificate{TlsCertificate: &tlsv3.TlsCertificate{
			CertificateChain: file(m.CertFile), PrivateKey: file(m.KeyFile),
		}}})
	}
	if m.CAFile != "" {
		out = append(out, &tlsv3.Secret{Name: metricsCABundleSDSName, Type: &tlsv3.Secret_ValidationContext{ValidationContext: &tlsv3.CertificateValidationContext{
			TrustedCa: file(m.CAFile),
		}}})
	}
	return out
}

// RuntimeLayerFor is the RTDS layer "dynamic" with the settings' keys:
// the max requests per I/O cycle, per-listener connection limits for the
// DAG's listeners, then the user's runtime-settings as strings (a key
// Contour manages is not overridden; the base RE2 keys are).
func RuntimeLayerFor(s *config.Settings, listenerNames []string) *runtimev3.Runtime {
	rt := runtimeLayer()
	managed := map[string]bool{}
	if v := s.MaxRequestsPerIOCycle; v != nil && *v > 0 {
		rt.Layer.Fields["http.max_requests_per_io_cycle"] = structpb.NewNumberValue(float64(*v))
		managed["http.max_requests_per_io_cycle"] = true
	}
	if v := s.MaxConnectionsPerListener; v != nil && *v > 0 {
		for _, n := range listenerNames {
			key := "envoy.resource_limits.listener." + n + ".connection_limit"
			rt.Layer.Fields[key] = structpb.NewNumberValue(float64(*v))
			managed[key] = true
		}
	}
	for k, v := range s.RuntimeSettings {
		if !managed[k] {
			rt.Layer.Fields[k] = structpb.NewStringValue(v)
		}
	}
	return rt
}

// downstreamTLSParams is the DownstreamTlsContext of a secure virtual host
// with the configuration's ciphers and curves.
func downstreamTLSContextFor(s *config.Settings, secretName string, minVersion, maxVersion tlsv3.TlsParameters_TlsProtocol, alpn ...string) *tlsv3.DownstreamTlsContext {
	ctx := downstreamTLSContext(secretName, minVersion, maxVersion, alpn...)
	ctx.CommonTlsContext.TlsCertificateSdsSecretConfigs[0].SdsConfig = configSource(s)
	ctx.CommonTlsContext.TlsParams.CipherSuites = append([]string(nil), s.TLS.CipherSuites...)
	ctx.CommonTlsContext.TlsParams.EcdhCurves = s.TLS.ECDHCurves
	return ctx
}

// tlsProtocol parses "1.2"/"1.3"; anything else is TLS_AUTO.
func tlsProtocol(v string) tlsv3.TlsParameters_TlsProtocol {
	switch strings.TrimSpace(v) {
	case "1.2":
		return tlsv3.TlsParameters_TLSv1_2
	case "1.3":
		return tlsv3.TlsParameters_TLSv1_3
	}
	return tlsv3.TlsParameters_TLS_AUTO
}

// globalTLSRange is the configuration's downstream TLS range: the minimum
// at least 1.2, the maximum 1.3 unless a valid version is set.
func globalTLSRange(s *config.Settings) (tlsv3.TlsParameters_TlsProtocol, tlsv3.TlsParameters_TlsProtocol) {
	lo := max(tlsProtocol(s.TLS.MinimumProtocolVersion), tlsv3.TlsParameters_TLSv1_2)
	hi := tlsProtocol(s.TLS.MaximumProtocolVersion)
	if hi < tlsv3.TlsParameters_TLSv1_2 {
		hi = tlsv3.TlsParameters_TLSv1_3
	}
	return lo, hi
}

// vhostTLSRange combines a virtual host's versions with the global range
// (E.8): the higher minimum, the lower maximum, the global maximum when
// the virtual host sets none.
func vhostTLSRange(s *config.Settings, vhMin, vhMax string) (tlsv3.TlsParameters_TlsProtocol, tlsv3.TlsParameters_TlsProtocol) {
	gMin, gMax := globalTLSRange(s)
	lo := max(gMin, tlsProtocol(vhMin))
	hi := min(gMax, tlsProtocol(vhMax))
	if hi == tlsv3.TlsParameters_TLS_AUTO {
		hi = gMax
	}
	return lo, hi
}
