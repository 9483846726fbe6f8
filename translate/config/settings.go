package config

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
// not necessarily Contour's default: Defaults gives those.

// Settings are the resolved configuration of one translation.
type Settings struct {
	// Listeners: ingress_http / ingress_https.
	HTTPAddress, HTTPSAddress     string
	HTTPPort, HTTPSPort           uint32
	HTTPAccessLog, HTTPSAccessLog string
	UseProxyProtocol              bool

	// Access logs.
	AccessLogFormat       string   // "envoy" or "json"
	AccessLogFormatString string   // envoy format only
	AccessLogJSONFields   []string // json format only; nil is Contour's default list
	AccessLogLevel        string   // info, error, critical, disabled

	// Downstream TLS.
	TLS                        TLSParams
	JA3, JA4                   bool
	FallbackCertificate        *types.NamespacedName
	ClientCertificate          *types.NamespacedName
	UpstreamTLS                TLSParams
	DefaultHTTPVersions        []string // "http/1.1" and/or "http/2"; empty is both
	Compression                string   // gzip, brotli, zstd, disabled
	ServerHeaderTransformation string   // overwrite, append_if_absent, pass_through
	AllowChunkedLength         bool
	MergeSlashes               bool
	XffNumTrustedHops          uint32
	StripTrailingHostDot       bool
	EnvoyAdminPort             int
	Timeouts                   ListenerTimeouts
	ConnectTimeout             time.Duration // 0: Envoy cluster default of Contour (2s)

	// Listener tuning.
	ConnectionBalancer                   string
	MaxRequestsPerConnection             *uint32
	PerConnectionBufferLimitBytes        *uint32
	TOS, TrafficClass                    int32
	MaxRequestsPerIOCycle                *uint32
	HTTP2MaxConcurrentStreams            *uint32
	MaxConnectionsPerListener            *uint32
	MaxConnectionsToAcceptPerSocketEvent *uint32
	RuntimeSettings                      map[string]string

	// Clusters.
	DNSLookupFamily                      string
	ClusterMaxRequestsPerConnection      *uint32
	ClusterPerConnectionBufferLimitBytes *uint32
	CircuitBreakers                      *dag.CircuitBreakers

	// DAG behaviour. Gateway, RootNamespaces and IngressClassNames come
	// from a ContourConfiguration (the file's gateway is FileGateway; the
	// others are flags there).
	Gateway                   *types.NamespacedName
	RootNamespaces            []string
	IngressClassNames         []string
	EnableExternalNameService bool
	DisablePermitInsecure     bool
	RequestHeaders            *dag.HeadersPolicy
	ResponseHeaders           *dag.HeadersPolicy
	ApplyToIngress            bool

	// Extension services, and the ExtensionServices they resolve to.
	RateLimitService   *RateLimitSettings
	GlobalExtAuth      *contourv1.AuthorizationServer
	Tracing            *TracingSettings
	RateLimitExtension *ExtensionRef
	TracingExtension   *ExtensionRef
	// GlobalExtAuthExtensions are GlobalExtAuth's serviceType and httpSettings, which
	// contourv1.AuthorizationServer lacks (nil: gRPC).
	GlobalExtAuthExtensions *loader.AuthorizationExtensions
	// ResolvedGlobalExtAuth is GlobalExtAuth resolved against its ExtensionService.
	ResolvedGlobalExtAuth *dag.ExternalAuthorization

	// Static listeners.
	Metrics          MetricsSettings
	Health           AddressPort
	OMEnforcedHealth *AddressPort
	// ADS: resources refer to one another over ADS (translate's Options.ADS).
	ADS bool
}

// ExtensionRef is an ExtensionService as the configuration's rate limit and
// tracing settings use it: its cluster, SNI and response timeout.
type ExtensionRef struct {
	ClusterName, SNI string
	Timeout          dag.Timeout
}

// TLSParams are TLS versions ("1.2"/"1.3"), ciphers and curves.
type TLSParams struct {
	MinimumProtocolVersion, MaximumProtocolVersion string
	CipherSuites                                   []string
	ECDHCurves                                     []string
}

// ListenerTimeouts are the HTTP connection manager timeouts.
type ListenerTimeouts struct {
	RequestTimeout, ConnectionIdleTimeout, StreamIdleTimeout, MaxConnectionDuration, DelayedCloseTimeout, ConnectionShutdownGracePeriod dag.Timeout
}

type AddressPort struct {
	Address string
	Port    int
}

type MetricsSettings struct {
	AddressPort
	CertFile, KeyFile, CAFile string
	TLS                       bool
}

// RateLimitSettings are the global rate limit service's.
type RateLimitSettings struct {
	ExtensionService             types.NamespacedName
	Domain                       string
	FailOpen                     bool
	EnableXRateLimitHeaders      bool
	EnableResourceExhaustedCode  bool
	DefaultGlobalRateLimitPolicy *contourv1.GlobalRateLimitPolicy
}

// TracingSettings are the OpenTelemetry tracing settings.
type TracingSettings struct {
	ExtensionService                                types.NamespacedName
	ServiceName                                     string
	OverallSampling, ClientSampling, RandomSampling float64
	MaxPathTagLength                                uint32
	IncludePodDetail                                bool
	CustomTags                                      []TracingTag
}

type TracingTag struct {
	TagName, Literal, Environment, RequestHeaderName string
}

// Contour's defaults for `contour serve` without a configuration.
const (
	defaultHTTPAddress    = "0.0.0.0"
	defaultHTTPPort       = 8080
	defaultHTTPSPort      = 8443
	defaultStatsPort      = 8002
	defaultAdminPort      = 9001
	defaultAccessLog      = "/dev/stdout"
	DefaultConnectTimeout = 2 * time.Second
)

// Defaults are Contour's settings with a configuration file that
// sets nothing (or with no configuration at all): the file path's defaults
// include a 60s connection idle timeout and a 2s connect timeout.
func Defaults() *Settings {
	return &Settings{
		HTTPAddress: defaultHTTPAddress, HTTPPort: defaultHTTPPort,
		HTTPSAddress: defaultHTTPAddress, HTTPSPort: defaultHTTPSPort,
		HTTPAccessLog: defaultAccessLog, HTTPSAccessLog: defaultAccessLog,
		AccessLogFormat: "envoy", AccessLogLevel: "info",
		TLS:                        TLSParams{MinimumProtocolVersion: "1.2", MaximumProtocolVersion: "1.3", CipherSuites: contourv1alpha1.DefaultTLSCiphers},
		UpstreamTLS:                TLSParams{MinimumProtocolVersion: "1.2", MaximumProtocolVersion: "1.3", CipherSuites: contourv1alpha1.DefaultTLSCiphers},
		Compression:                "gzip",
		ServerHeaderTransformation: "overwrite",
		AllowChunkedLength:         true,
		MergeSlashes:               true,
		EnvoyAdminPort:             defaultAdminPort,
		Timeouts:                   ListenerTimeouts{ConnectionIdleTimeout: dag.Timeout{Set: true, Duration: 60 * time.Second}},
		ConnectTimeout:             DefaultConnectTimeout,
		DNSLookupFamily:            "auto",
		Metrics:                    MetricsSettings{AddressPort: AddressPort{defaultHTTPAddress, defaultStatsPort}},
		Health:                     AddressPort{defaultHTTPAddress, defaultStatsPort},
	}
}

// settingsFromFile applies a configuration file (already strictly read and
// checked by the loader) on Contour's defaults.
func settingsFromFile(cfg *loader.ContourConfig) (*Settings, error) {
	s := Defaults()
	if cfg == nil {
		return s, nil
	}
	var errs []error
	if cfg.AccessLogFormat != "" {
		s.AccessLogFormat = cfg.AccessLogFormat
	}
	s.AccessLogFormatString = cfg.AccessLogFormatString
	if len(cfg.AccessLogFields) > 0 {
		s.AccessLogJSONFields = cfg.AccessLogFields
	}
	if cfg.AccessLogLevel != "" {
		s.AccessLogLevel = cfg.AccessLogLevel
	}
	s.TLS = mergeTLS(s.TLS, cfg.TLS.ConfigTLSProtocol)
	if fp := cfg.TLS.Fingerprint; fp != nil {
		s.JA3 = fp.JA3 != nil && *fp.JA3
		s.JA4 = fp.JA4 != nil && *fp.JA4
	}
	if n := cfg.TLS.FallbackCertificate; n.Name != "" {
		s.FallbackCertificate = &types.NamespacedName{Namespace: n.Namespace, Name: n.Name}
	}
	if n := cfg.TLS.ClientCertificate; n.Name != "" {
		s.ClientCertificate = &types.NamespacedName{Namespace: n.Namespace, Name: n.Name}
	}
	s.DisablePermitInsecure = cfg.DisablePermitInsecure
	s.AllowChunkedLength = !cfg.DisableAllowChunkedLength
	s.MergeSlashes = !cfg.DisableMergeSlashes
	if cfg.Compression.Algorithm != "" {
		s.Compression = cfg.Compression.Algorithm
	}
	if cfg.ServerHeaderTransformation != "" {
		s.ServerHeaderTransformation = cfg.ServerHeaderTransformation
	}
	s.EnableExternalNameService = cfg.EnableExternalNameService
	t := cfg.Timeouts
	errs = append(errs, parseTimeouts(&s.Timeouts, &s.ConnectTimeout, map[string]string{
		"request-timeout": t.RequestTimeout, "connection-idle-timeout": t.ConnectionIdleTimeout,
		"stream-idle-timeout": t.StreamIdleTimeout, "max-connection-duration": t.MaxConnectionDuration,
		"delayed-close-timeout": t.DelayedCloseTimeout, "connection-shutdown-grace-period": t.ConnectionShutdownGracePeriod,
		"connect-timeout": t.ConnectTimeout,
	}, "timeouts."))
	s.RequestHeaders = configHeadersPolicy(cfg.Policy.RequestHeaders.Set, cfg.Policy.RequestHeaders.Remove)
	s.ResponseHeaders = configHeadersPolicy(cfg.Policy.ResponseHeaders.Set, cfg.Policy.ResponseHeaders.Remove)
	s.ApplyToIngress = cfg.Policy.ApplyToIngress
	for _, v := range cfg.DefaultHTTPVersions {
		s.DefaultHTTPVersions = append(s.DefaultHTTPVersions, strings.ToLower(v))
	}
	c := cfg.Cluster
	if c.DNSLookupFamily != "" {
		s.DNSLookupFamily = c.DNSLookupFamily
	}
	s.ClusterMaxRequestsPerConnection = c.MaxRequestsPerConnection
	s.ClusterPerConnectionBufferLimitBytes = c.PerConnectionBufferLimitBytes
	s.CircuitBreakers = configCircuitBreakers(c.CircuitBreakers.API())
	s.UpstreamTLS = mergeTLS(s.UpstreamTLS, c.UpstreamTLS)
	s.XffNumTrustedHops = cfg.Network.XffNumTrustedHops
	if cfg.Network.EnvoyAdminPort != 0 {
		s.EnvoyAdminPort = cfg.Network.EnvoyAdminPort
	}
	s.StripTrailingHostDot = cfg.Network.StripTrailingHostDot
	l := cfg.Listener
	s.ConnectionBalancer = l.ConnectionBalancer
	s.MaxRequestsPerConnection = l.MaxRequestsPerConnection
	s.PerConnectionBufferLimitBytes = l.PerConnectionBufferLimitBytes
	s.TOS, s.TrafficClass = l.SocketOptions.TOS, l.SocketOptions.TrafficClass
	s.MaxRequestsPerIOCycle = l.MaxRequestsPerIOCycle
	s.HTTP2MaxConcurrentStreams = l.HTTP2MaxConcurrentStreams
	s.MaxConnectionsPerListener = l.MaxConnectionsPerListener
	s.MaxConnectionsToAcceptPerSocketEvent = l.MaxConnectionsToAcceptPerSocketEvent
	s.RuntimeSettings = cfg.RuntimeSettings
	if r := cfg.RateLimitService; r.ExtensionService != "" {
		s.RateLimitService = &RateLimitSettings{
			ExtensionService: namespacedNameFrom(r.ExtensionService), Domain: r.Domain, FailOpen: r.FailOpen,
			EnableXRateLimitHeaders: r.EnableXRateLimitHeaders, EnableResourceExhaustedCode: r.EnableResourceExhaustedCode,
			DefaultGlobalRateLimitPolicy: r.DefaultGlobalRateLimitPolicy,
		}
	}
	if a := cfg.GlobalExtAuth; a.ExtensionService != "" {
		n := namespacedNameFrom(a.ExtensionService)
		s.GlobalExtAuth = &contourv1.AuthorizationServer{
			ExtensionServiceRef: contourv1.ExtensionServiceReference{Namespace: n.Namespace, Name: n.Name},
			ResponseTimeout:     a.ResponseTimeout,
			FailOpen:            a.FailOpen,
			WithRequestBody:     a.WithRequestBody,
		}
		if a.AuthPolicy != nil {
			s.GlobalExtAuth.AuthPolicy = &contourv1.AuthorizationPolicy{Disabled: a.AuthPolicy.Disabled, Context: a.AuthPolicy.Context}
		}
		s.GlobalExtAuthExtensions = &loader.AuthorizationExtensions{ServiceType: a.ServiceType, HTTPSettings: a.HTTPSettings}
		errs = append(errs, validateGlobalAuth(s.GlobalExtAuth, s.GlobalExtAuthExtensions))
	}
	if tr := cfg.Tracing; tr != nil {
		ts := &TracingSettings{
			ExtensionService: namespacedNameFrom(tr.ExtensionService),
			ServiceName:      "contour",
			OverallSampling:  samplingRate(tr.OverallSampling),
			ClientSampling:   samplingRate(tr.ClientSampling),
			RandomSampling:   samplingRate(tr.RandomSampling),
			MaxPathTagLength: 256,
			IncludePodDetail: tr.IncludePodDetail == nil || *tr.IncludePodDetail,
		}
		if tr.ServiceName != nil {
			ts.ServiceName = *tr.ServiceName
		}
		if tr.MaxPathTagLength != nil {
			ts.MaxPathTagLength = *tr.MaxPathTagLength
		}
		for _, ct := range tr.CustomTags {
			ts.CustomTags = append(ts.CustomTags, TracingTag{TagName: ct.TagName, Literal: ct.Literal, RequestHeaderName: ct.RequestHeaderName})
		}
		errs = append(errs, validateTracing(true, map[string]*string{"sampling": tr.OverallSampling, "client sampling": tr.ClientSampling, "random sampling": tr.RandomSampling}, ts.CustomTags))
		s.Tracing = ts
	}
	applyMetricsServer(&s.Metrics, cfg.Metrics.Envoy)
	if h := cfg.OMEnforcedHealthListener; h != nil {
		s.OMEnforcedHealth = &AddressPort{h.Address, h.Port}
	}
	errs = append(errs, s.validate())
	return s, errors.Join(errs...)
}

// validateGlobalAuth makes the checks of an authorization server that do
// not need its ExtensionService. Contour makes them on globalExtAuth at
// start-up, where a problem stops it.
func validateGlobalAuth(auth *contourv1.AuthorizationServer, ext *loader.AuthorizationExtensions) error {
	if err := ApplyAuthorizationServiceType(&dag.ExternalAuthorization{}, auth.AuthPolicy, ext); err != nil {
		return fmt.Errorf("globalExtAuth: %s", err.Msg)
	}
	return nil
}

// applyMetricsServer overrides the Envoy metrics listener with the
// configuration file's metrics.envoy, as Contour does (the file wins over
// --stats-address/--stats-port for metrics, not for health).
func applyMetricsServer(m *MetricsSettings, src loader.ConfigMetricsServer) {
	if src.Address != "" {
		m.Address = src.Address
	}
	if src.Port > 0 {
		m.Port = src.Port
	}
	if src.ServerCert != "" && src.ServerKey != "" {
		m.TLS, m.CertFile, m.KeyFile, m.CAFile = true, src.ServerCert, src.ServerKey, src.CABundle
	}
}

// mergeTLS overlays a configuration's TLS protocol settings on defaults:
// ciphers deduplicated in order, curves likewise.
func mergeTLS(def TLSParams, c loader.ConfigTLSProtocol) TLSParams {
	out := def
	if c.MinimumProtocolVersion != "" {
		out.MinimumProtocolVersion = c.MinimumProtocolVersion
	}
	if c.MaximumProtocolVersion != "" {
		out.MaximumProtocolVersion = c.MaximumProtocolVersion
	}
	if len(c.CipherSuites) > 0 {
		out.CipherSuites = dedupe(c.CipherSuites)
	}
	if len(c.ECDHCurves) > 0 {
		out.ECDHCurves = dedupe(c.ECDHCurves)
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
func parseTimeouts(t *ListenerTimeouts, connect *time.Duration, values map[string]string, prefix string) error {
	var errs []error
	set := func(key string, dst *dag.Timeout) {
		v, ok := values[key]
		if !ok || v == "" {
			return
		}
		parsed, err := ParseTimeout(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s%s: %w", prefix, key, err))
			return
		}
		*dst = parsed
	}
	set("request-timeout", &t.RequestTimeout)
	set("connection-idle-timeout", &t.ConnectionIdleTimeout)
	set("stream-idle-timeout", &t.StreamIdleTimeout)
	set("max-connection-duration", &t.MaxConnectionDuration)
	set("delayed-close-timeout", &t.DelayedCloseTimeout)
	set("connection-shutdown-grace-period", &t.ConnectionShutdownGracePeriod)
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

// ParseTimeout is Contour's timeout.Parse: "" and 0 are Envoy's
// default, "infinity"/"infinite" disable the timeout.
func ParseTimeout(s string) (dag.Timeout, error) {
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
func (s *Settings) validate() error {
	var errs []error
	for _, p := range []struct {
		name string
		tls  TLSParams
	}{{"tls", s.TLS}, {"cluster.upstream-tls", s.UpstreamTLS}} {
		t := contourv1alpha1.EnvoyTLS{MinimumProtocolVersion: p.tls.MinimumProtocolVersion, MaximumProtocolVersion: p.tls.MaximumProtocolVersion, CipherSuites: p.tls.CipherSuites}
		if err := t.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", p.name, err))
		}
		for _, c := range p.tls.ECDHCurves {
			if !validECDHCurve(c) {
				errs = append(errs, fmt.Errorf("%s: invalid ECDH curve %q", p.name, c))
			}
		}
	}
	if s.AccessLogFormat == "json" {
		if err := contourv1alpha1.AccessLogJSONFields(s.AccessLogJSONFields).Validate(); err != nil {
			errs = append(errs, fmt.Errorf("json-fields: %w", err))
		}
	}
	if err := contourv1alpha1.AccessLogFormatString(s.AccessLogFormatString).Validate(); err != nil {
		errs = append(errs, fmt.Errorf("accesslog-format-string: %w", err))
	}
	if s.Metrics.TLS && s.Metrics.AddressPort == s.Health {
		errs = append(errs, errors.New("invalid contour configuration: cannot use single port for health over HTTP and metrics over HTTPS"))
	}
	if h := s.OMEnforcedHealth; h != nil {
		switch {
		case *h == s.Health:
			errs = append(errs, errors.New("cannot use the same port for health checks and overload-manager enforced health checks"))
		case *h == s.Metrics.AddressPort:
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
func validateTracing(hasExtension bool, sampling map[string]*string, tags []TracingTag) error {
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
		if t.TagName == "" {
			return errors.New("tracing.customTag.tagName must be defined")
		}
		if names[t.TagName] {
			return fmt.Errorf("tagName %s is duplicate", t.TagName)
		}
		names[t.TagName] = true
		n := 0
		if t.Literal != "" {
			n++
		}
		if t.RequestHeaderName != "" {
			n++
		}
		if n != 1 {
			return errors.New("must set exactly one of Literal or RequestHeaderName")
		}
	}
	return nil
}
