package translate

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	contourv1alpha1 "github.com/projectcontour/contour/apis/projectcontour/v1alpha1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/dag"
)

// The settings Contour derives from its configuration (file, or a
// ContourConfiguration object) and its `contour serve` flags, in the form the
// DAG processors and the Envoy builders use them. Every field's zero value is
// not necessarily Contour's default: defaultSettings gives those.

// settings are the resolved configuration of one translation.
type settings struct {
	// Listeners: ingress_http / ingress_https.
	httpAddress, httpsAddress       string
	httpPort, httpsPort             uint32
	httpAccessLogPath, httpsLogPath string
	useProxyProtocol                bool

	// Access logs.
	accessLogFormat       string   // "envoy" or "json"
	accessLogFormatString string   // envoy format only
	accessLogJSONFields   []string // json format only; nil is Contour's default list
	accessLogLevel        string   // info, error, critical, disabled

	// Downstream TLS.
	tls           tlsParams
	ja3, ja4      bool
	fallbackCert  *types.NamespacedName
	clientCert    *types.NamespacedName
	upstreamTLS   tlsParams
	defaultHTTP   []string // "http/1.1" and/or "http/2"; empty is both
	compression   string   // gzip, brotli, zstd, disabled
	serverHeader  string   // overwrite, append_if_absent, pass_through
	allowChunked  bool
	mergeSlashes  bool
	trustedHops   uint32
	stripHostDot  bool
	adminPort     int
	timeouts      listenerTimeouts
	connectTimout time.Duration // 0: Envoy cluster default of Contour (2s)

	// Listener tuning.
	connectionBalancer          string
	maxRequestsPerConnection    *uint32
	listenerBufferLimit         *uint32
	tos, trafficClass           int32
	maxRequestsPerIOCycle       *uint32
	http2MaxConcurrentStreams   *uint32
	maxConnectionsPerListener   *uint32
	maxConnectionsPerSocketEvnt *uint32
	runtimeSettings             map[string]string

	// Clusters.
	dnsLookupFamily                 string
	clusterMaxRequestsPerConnection *uint32
	clusterBufferLimit              *uint32
	circuitBreakers                 *dag.CircuitBreakers

	// DAG behaviour. gateway, rootNamespaces and ingressClassNames come
	// from a ContourConfiguration (the file's gateway is applied by
	// withConfig; the others are flags there).
	gateway                   *types.NamespacedName
	rootNamespaces            []string
	ingressClassNames         []string
	enableExternalNameService bool
	disablePermitInsecure     bool
	requestHeaders            *dag.HeadersPolicy
	responseHeaders           *dag.HeadersPolicy
	applyToIngress            bool

	// Extension services, and the ExtensionServices they resolve to.
	rateLimit          *rateLimitSettings
	extAuth            *contourv1.AuthorizationServer
	tracing            *tracingSettings
	rateLimitExtension *extensionRef
	tracingExtension   *extensionRef
	// extAuthExt are extAuth's serviceType and httpSettings, which
	// contourv1.AuthorizationServer lacks (nil: gRPC).
	extAuthExt *loader.AuthorizationExtensions
	// globalAuth is extAuth resolved against its ExtensionService.
	globalAuth *dag.ExternalAuthorization

	// Static listeners.
	metrics          metricsSettings
	health           addressPort
	omEnforcedHealth *addressPort
	// ads: resources refer to one another over ADS (Options.ADS).
	ads bool
}

// tlsParams are TLS versions ("1.2"/"1.3"), ciphers and curves.
type tlsParams struct {
	min, max     string
	cipherSuites []string
	ecdhCurves   []string
}

// listenerTimeouts are the HTTP connection manager timeouts.
type listenerTimeouts struct {
	request, connectionIdle, streamIdle, maxConnectionDuration, delayedClose, shutdownGrace dag.Timeout
}

type addressPort struct {
	address string
	port    int
}

type metricsSettings struct {
	addressPort
	certFile, keyFile, caFile string
	tls                       bool
}

// rateLimitSettings are the global rate limit service's.
type rateLimitSettings struct {
	extension                   types.NamespacedName
	domain                      string
	failOpen                    bool
	enableXRateLimitHeaders     bool
	enableResourceExhaustedCode bool
	defaultPolicy               *contourv1.GlobalRateLimitPolicy
}

// tracingSettings are the OpenTelemetry tracing settings.
type tracingSettings struct {
	extension                                       types.NamespacedName
	serviceName                                     string
	overallSampling, clientSampling, randomSampling float64
	maxPathTagLength                                uint32
	includePodDetail                                bool
	customTags                                      []tracingTag
}

type tracingTag struct{ name, literal, environment, requestHeader string }

// Contour's defaults for `contour serve` without a configuration.
const (
	defaultHTTPAddress  = "0.0.0.0"
	defaultHTTPPort     = 8080
	defaultHTTPSPort    = 8443
	defaultStatsPort    = 8002
	defaultAdminPort    = 9001
	defaultAccessLog    = "/dev/stdout"
	defaultConnectTimeo = 2 * time.Second
)

// defaultSettings are Contour's settings with a configuration file that
// sets nothing (or with no configuration at all): the file path's defaults
// include a 60s connection idle timeout and a 2s connect timeout.
func defaultSettings() *settings {
	return &settings{
		httpAddress: defaultHTTPAddress, httpPort: defaultHTTPPort,
		httpsAddress: defaultHTTPAddress, httpsPort: defaultHTTPSPort,
		httpAccessLogPath: defaultAccessLog, httpsLogPath: defaultAccessLog,
		accessLogFormat: "envoy", accessLogLevel: "info",
		tls:             tlsParams{min: "1.2", max: "1.3", cipherSuites: contourv1alpha1.DefaultTLSCiphers},
		upstreamTLS:     tlsParams{min: "1.2", max: "1.3", cipherSuites: contourv1alpha1.DefaultTLSCiphers},
		compression:     "gzip",
		serverHeader:    "overwrite",
		allowChunked:    true,
		mergeSlashes:    true,
		adminPort:       defaultAdminPort,
		timeouts:        listenerTimeouts{connectionIdle: dag.Timeout{Set: true, Duration: 60 * time.Second}},
		connectTimout:   defaultConnectTimeo,
		dnsLookupFamily: "auto",
		metrics:         metricsSettings{addressPort: addressPort{defaultHTTPAddress, defaultStatsPort}},
		health:          addressPort{defaultHTTPAddress, defaultStatsPort},
	}
}

// settingsFromFile applies a configuration file (already strictly read and
// checked by the loader) on Contour's defaults.
func settingsFromFile(cfg *loader.ContourConfig) (*settings, error) {
	s := defaultSettings()
	if cfg == nil {
		return s, nil
	}
	var errs []error
	if cfg.AccessLogFormat != "" {
		s.accessLogFormat = cfg.AccessLogFormat
	}
	s.accessLogFormatString = cfg.AccessLogFormatString
	if len(cfg.AccessLogFields) > 0 {
		s.accessLogJSONFields = cfg.AccessLogFields
	}
	if cfg.AccessLogLevel != "" {
		s.accessLogLevel = cfg.AccessLogLevel
	}
	s.tls = mergeTLS(s.tls, cfg.TLS.ConfigTLSProtocol)
	if fp := cfg.TLS.Fingerprint; fp != nil {
		s.ja3 = fp.JA3 != nil && *fp.JA3
		s.ja4 = fp.JA4 != nil && *fp.JA4
	}
	if n := cfg.TLS.FallbackCertificate; n.Name != "" {
		s.fallbackCert = &types.NamespacedName{Namespace: n.Namespace, Name: n.Name}
	}
	if n := cfg.TLS.ClientCertificate; n.Name != "" {
		s.clientCert = &types.NamespacedName{Namespace: n.Namespace, Name: n.Name}
	}
	s.disablePermitInsecure = cfg.DisablePermitInsecure
	s.allowChunked = !cfg.DisableAllowChunkedLength
	s.mergeSlashes = !cfg.DisableMergeSlashes
	if cfg.Compression.Algorithm != "" {
		s.compression = cfg.Compression.Algorithm
	}
	if cfg.ServerHeaderTransformation != "" {
		s.serverHeader = cfg.ServerHeaderTransformation
	}
	s.enableExternalNameService = cfg.EnableExternalNameService
	t := cfg.Timeouts
	errs = append(errs, parseTimeouts(&s.timeouts, &s.connectTimout, map[string]string{
		"request-timeout": t.RequestTimeout, "connection-idle-timeout": t.ConnectionIdleTimeout,
		"stream-idle-timeout": t.StreamIdleTimeout, "max-connection-duration": t.MaxConnectionDuration,
		"delayed-close-timeout": t.DelayedCloseTimeout, "connection-shutdown-grace-period": t.ConnectionShutdownGracePeriod,
		"connect-timeout": t.ConnectTimeout,
	}, "timeouts."))
	s.requestHeaders = configHeadersPolicy(cfg.Policy.RequestHeaders.Set, cfg.Policy.RequestHeaders.Remove)
	s.responseHeaders = configHeadersPolicy(cfg.Policy.ResponseHeaders.Set, cfg.Policy.ResponseHeaders.Remove)
	s.applyToIngress = cfg.Policy.ApplyToIngress
	for _, v := range cfg.DefaultHTTPVersions {
		s.defaultHTTP = append(s.defaultHTTP, strings.ToLower(v))
	}
	c := cfg.Cluster
	if c.DNSLookupFamily != "" {
		s.dnsLookupFamily = c.DNSLookupFamily
	}
	s.clusterMaxRequestsPerConnection = c.MaxRequestsPerConnection
	s.clusterBufferLimit = c.PerConnectionBufferLimitBytes
	s.circuitBreakers = configCircuitBreakers(c.CircuitBreakers.API())
	s.upstreamTLS = mergeTLS(s.upstreamTLS, c.UpstreamTLS)
	s.trustedHops = cfg.Network.XffNumTrustedHops
	if cfg.Network.EnvoyAdminPort != 0 {
		s.adminPort = cfg.Network.EnvoyAdminPort
	}
	s.stripHostDot = cfg.Network.StripTrailingHostDot
	l := cfg.Listener
	s.connectionBalancer = l.ConnectionBalancer
	s.maxRequestsPerConnection = l.MaxRequestsPerConnection
	s.listenerBufferLimit = l.PerConnectionBufferLimitBytes
	s.tos, s.trafficClass = l.SocketOptions.TOS, l.SocketOptions.TrafficClass
	s.maxRequestsPerIOCycle = l.MaxRequestsPerIOCycle
	s.http2MaxConcurrentStreams = l.HTTP2MaxConcurrentStreams
	s.maxConnectionsPerListener = l.MaxConnectionsPerListener
	s.maxConnectionsPerSocketEvnt = l.MaxConnectionsToAcceptPerSocketEvent
	s.runtimeSettings = cfg.RuntimeSettings
	if r := cfg.RateLimitService; r.ExtensionService != "" {
		s.rateLimit = &rateLimitSettings{
			extension: namespacedNameFrom(r.ExtensionService), domain: r.Domain, failOpen: r.FailOpen,
			enableXRateLimitHeaders: r.EnableXRateLimitHeaders, enableResourceExhaustedCode: r.EnableResourceExhaustedCode,
			defaultPolicy: r.DefaultGlobalRateLimitPolicy,
		}
	}
	if a := cfg.GlobalExtAuth; a.ExtensionService != "" {
		n := namespacedNameFrom(a.ExtensionService)
		s.extAuth = &contourv1.AuthorizationServer{
			ExtensionServiceRef: contourv1.ExtensionServiceReference{Namespace: n.Namespace, Name: n.Name},
			ResponseTimeout:     a.ResponseTimeout,
			FailOpen:            a.FailOpen,
			WithRequestBody:     a.WithRequestBody,
		}
		if a.AuthPolicy != nil {
			s.extAuth.AuthPolicy = &contourv1.AuthorizationPolicy{Disabled: a.AuthPolicy.Disabled, Context: a.AuthPolicy.Context}
		}
		s.extAuthExt = &loader.AuthorizationExtensions{ServiceType: a.ServiceType, HTTPSettings: a.HTTPSettings}
		errs = append(errs, validateGlobalAuth(s.extAuth, s.extAuthExt))
	}
	if tr := cfg.Tracing; tr != nil {
		ts := &tracingSettings{
			extension:        namespacedNameFrom(tr.ExtensionService),
			serviceName:      "contour",
			overallSampling:  samplingRate(tr.OverallSampling),
			clientSampling:   samplingRate(tr.ClientSampling),
			randomSampling:   samplingRate(tr.RandomSampling),
			maxPathTagLength: 256,
			includePodDetail: tr.IncludePodDetail == nil || *tr.IncludePodDetail,
		}
		if tr.ServiceName != nil {
			ts.serviceName = *tr.ServiceName
		}
		if tr.MaxPathTagLength != nil {
			ts.maxPathTagLength = *tr.MaxPathTagLength
		}
		for _, ct := range tr.CustomTags {
			ts.customTags = append(ts.customTags, tracingTag{name: ct.TagName, literal: ct.Literal, requestHeader: ct.RequestHeaderName})
		}
		errs = append(errs, validateTracing(true, map[string]*string{"sampling": tr.OverallSampling, "client sampling": tr.ClientSampling, "random sampling": tr.RandomSampling}, ts.customTags))
		s.tracing = ts
	}
	applyMetricsServer(&s.metrics, cfg.Metrics.Envoy)
	if h := cfg.OMEnforcedHealthListener; h != nil {
		s.omEnforcedHealth = &addressPort{h.Address, h.Port}
	}
	errs = append(errs, s.validate())
	return s, errors.Join(errs...)
}

// validateGlobalAuth makes the checks of an authorization server that do
// not need its ExtensionService. Contour makes them on globalExtAuth at
// start-up, where a problem stops it.
func validateGlobalAuth(auth *contourv1.AuthorizationServer, ext *loader.AuthorizationExtensions) error {
	if err := applyServiceType(&dag.ExternalAuthorization{}, auth.AuthPolicy, ext); err != nil {
		return fmt.Errorf("globalExtAuth: %s", err.msg)
	}
	return nil
}

// applyMetricsServer overrides the Envoy metrics listener with the
// configuration file's metrics.envoy, as Contour does (the file wins over
// --stats-address/--stats-port for metrics, not for health).
func applyMetricsServer(m *metricsSettings, src loader.ConfigMetricsServer) {
	if src.Address != "" {
		m.address = src.Address
	}
	if src.Port > 0 {
		m.port = src.Port
	}
	if src.ServerCert != "" && src.ServerKey != "" {
		m.tls, m.certFile, m.keyFile, m.caFile = true, src.ServerCert, src.ServerKey, src.CABundle
	}
}

// mergeTLS overlays a configuration's TLS protocol settings on defaults:
// ciphers deduplicated in order, curves likewise.
func mergeTLS(def tlsParams, c loader.ConfigTLSProtocol) tlsParams {
	out := def
	if c.MinimumProtocolVersion != "" {
		out.min = c.MinimumProtocolVersion
	}
	if c.MaximumProtocolVersion != "" {
		out.max = c.MaximumProtocolVersion
	}
	if len(c.CipherSuites) > 0 {
		out.cipherSuites = dedupe(c.CipherSuites)
	}
	if len(c.ECDHCurves) > 0 {
		out.ecdhCurves = dedupe(c.ECDHCurves)
	}
	return out
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// namespacedNameFrom parses "ns/name"; a bare name has namespace "", as
// Contour's k8s.NamespacedNameFrom gives.
func namespacedNameFrom(s string) types.NamespacedName {
	if ns, name, ok := strings.Cut(s, "/"); ok {
		return types.NamespacedName{Namespace: ns, Name: name}
	}
	return types.NamespacedName{Name: s}
}

// samplingRate is Contour's parseSamplingRate: unset, invalid or zero is 100.
func samplingRate(s *string) float64 {
	if s == nil {
		return 100
	}
	v, err := strconv.ParseFloat(*s, 64)
	if err != nil || v == 0 {
		return 100
	}
	return v
}

// parseTimeouts parses the connection manager and connect timeouts; a key
// that is not set keeps the default already in place.
func parseTimeouts(t *listenerTimeouts, connect *time.Duration, values map[string]string, prefix string) error {
	var errs []error
	set := func(key string, dst *dag.Timeout) {
		v, ok := values[key]
		if !ok || v == "" {
			return
		}
		parsed, err := parseConfigTimeout(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s%s: %w", prefix, key, err))
			return
		}
		*dst = parsed
	}
	set("request-timeout", &t.request)
	set("connection-idle-timeout", &t.connectionIdle)
	set("stream-idle-timeout", &t.streamIdle)
	set("max-connection-duration", &t.maxConnectionDuration)
	set("delayed-close-timeout", &t.delayedClose)
	set("connection-shutdown-grace-period", &t.shutdownGrace)
	if v := values["connect-timeout"]; v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%sconnect-timeout: %w", prefix, err))
		} else {
			*connect = d
		}
	}
	return errors.Join(errs...)
}

// parseConfigTimeout is Contour's timeout.Parse: "" and 0 are Envoy's
// default, "infinity"/"infinite" disable the timeout.
func parseConfigTimeout(s string) (dag.Timeout, error) {
	switch s {
	case "infinity", "infinite":
		return dag.Timeout{Set: true, Disabled: true}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return dag.Timeout{}, fmt.Errorf("unable to parse timeout string %q: %w", s, err)
	}
	if d == 0 {
		return dag.Timeout{}, nil
	}
	return dag.Timeout{Set: true, Duration: d}, nil
}

func configHeadersPolicy(set map[string]string, remove []string) *dag.HeadersPolicy {
	if len(set) == 0 && len(remove) == 0 {
		return nil
	}
	return &dag.HeadersPolicy{Set: set, Remove: remove}
}

func configCircuitBreakers(cb *contourv1alpha1.CircuitBreakers) *dag.CircuitBreakers {
	if cb == nil {
		return nil
	}
	return &dag.CircuitBreakers{
		MaxConnections: cb.MaxConnections, MaxPendingRequests: cb.MaxPendingRequests, MaxRequests: cb.MaxRequests,
		MaxRetries: cb.MaxRetries, PerHostMaxConnections: cb.PerHostMaxConnections,
	}
}

// validate makes the checks Contour makes at start-up that the loader does
// not: TLS versions and ciphers, access log formats, metrics/health ports.
func (s *settings) validate() error {
	var errs []error
	for _, p := range []struct {
		name string
		tls  tlsParams
	}{{"tls", s.tls}, {"cluster.upstream-tls", s.upstreamTLS}} {
		t := contourv1alpha1.EnvoyTLS{MinimumProtocolVersion: p.tls.min, MaximumProtocolVersion: p.tls.max, CipherSuites: p.tls.cipherSuites}
		if err := t.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", p.name, err))
		}
		for _, c := range p.tls.ecdhCurves {
			if !validECDHCurve(c) {
				errs = append(errs, fmt.Errorf("%s: invalid ECDH curve %q", p.name, c))
			}
		}
	}
	if s.accessLogFormat == "json" {
		if err := contourv1alpha1.AccessLogJSONFields(s.accessLogJSONFields).Validate(); err != nil {
			errs = append(errs, fmt.Errorf("json-fields: %w", err))
		}
	}
	if err := contourv1alpha1.AccessLogFormatString(s.accessLogFormatString).Validate(); err != nil {
		errs = append(errs, fmt.Errorf("accesslog-format-string: %w", err))
	}
	if s.metrics.tls && s.metrics.addressPort == s.health {
		errs = append(errs, errors.New("invalid contour configuration: cannot use single port for health over HTTP and metrics over HTTPS"))
	}
	if h := s.omEnforcedHealth; h != nil {
		switch {
		case *h == s.health:
			errs = append(errs, errors.New("cannot use the same port for health checks and overload-manager enforced health checks"))
		case *h == s.metrics.addressPort:
			errs = append(errs, errors.New("cannot use the same port for metrics and overload-manager enforced health checks"))
		}
	}
	return errors.Join(errs...)
}

// validECDHCurve reports whether Contour accepts the curve.
func validECDHCurve(curve string) bool {
	switch curve {
	case "X25519", "P-256", "P-384", "P-521", "X25519MLKEM768", "MLKEM1024":
		return true
	}
	return false
}

// validateTracing is Contour's TracingConfig.Validate.
func validateTracing(hasExtension bool, sampling map[string]*string, tags []tracingTag) error {
	if !hasExtension {
		return errors.New("tracing.extensionService must be defined")
	}
	for _, what := range []string{"sampling", "client sampling", "random sampling"} {
		if v := sampling[what]; v != nil {
			if _, err := strconv.ParseFloat(*v, 64); err != nil {
				return fmt.Errorf("invalid tracing %s: %v", what, err)
			}
		}
	}
	names := map[string]bool{}
	for _, t := range tags {
		if t.name == "" {
			return errors.New("tracing.customTag.tagName must be defined")
		}
		if names[t.name] {
			return fmt.Errorf("tagName %s is duplicate", t.name)
		}
		names[t.name] = true
		n := 0
		if t.literal != "" {
			n++
		}
		if t.requestHeader != "" {
			n++
		}
		if n != 1 {
			return errors.New("must set exactly one of Literal or RequestHeaderName")
		}
	}
	return nil
}
