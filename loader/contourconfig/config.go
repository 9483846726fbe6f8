package contourconfig

import (
	"errors"
	"fmt"
	"strings"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	contourv1alpha1 "github.com/projectcontour/contour/apis/projectcontour/v1alpha1"
	"go.yaml.in/yaml/v3"

	"github.com/contourc/contourc/loader/internal/manifest"
	"github.com/contourc/contourc/loader/mainbranch"
)

// Contour's configuration file (the contour.yaml of the `contour`
// ConfigMap), read as strictly as Contour reads it: an unknown key is an
// error naming its line. The keys are Contour's; values Contour checks are
// checked here (see validateContourConfig), so a file Contour would refuse
// at start-up is refused too.

// Config is Contour's configuration file.
type Config struct {
	Debug                      bool              `json:"debug"`
	InCluster                  bool              `json:"incluster"`
	Kubeconfig                 string            `json:"kubeconfig"`
	KubeClientQPS              float32           `json:"kubernetesClientQPS"`
	KubeClientBurst            int               `json:"kubernetesClientBurst"`
	Server                     struct{}          `json:"server"`
	Gateway                    *Gateway          `json:"gateway"`
	IngressStatusAddress       string            `json:"ingress-status-address"`
	AccessLogFormat            string            `json:"accesslog-format"`
	AccessLogFormatString      string            `json:"accesslog-format-string"`
	AccessLogFields            []string          `json:"json-fields"`
	AccessLogLevel             string            `json:"accesslog-level"`
	TLS                        TLS               `json:"tls"`
	DisablePermitInsecure      bool              `json:"disablePermitInsecure"`
	DisableAllowChunkedLength  bool              `json:"disableAllowChunkedLength"`
	DisableMergeSlashes        bool              `json:"disableMergeSlashes"`
	Compression                Compression       `json:"compression"`
	ServerHeaderTransformation string            `json:"serverHeaderTransformation"`
	EnableExternalNameService  bool              `json:"enableExternalNameService"`
	Timeouts                   Timeouts          `json:"timeouts"`
	Policy                     Policy            `json:"policy"`
	EnvoyServiceNamespace      string            `json:"envoy-service-namespace"`
	EnvoyServiceName           string            `json:"envoy-service-name"`
	DefaultHTTPVersions        []string          `json:"default-http-versions"`
	Cluster                    Cluster           `json:"cluster"`
	Network                    Network           `json:"network"`
	Listener                   Listener          `json:"listener"`
	RateLimitService           RateLimitService  `json:"rateLimitService"`
	GlobalExtAuth              GlobalExtAuth     `json:"globalExtAuth"`
	Metrics                    Metrics           `json:"metrics"`
	Tracing                    *Tracing          `json:"tracing"`
	FeatureFlags               []string          `json:"featureFlags"`
	OMEnforcedHealthListener   *Address          `json:"omEnforcedHealthListener"`
	RuntimeSettings            map[string]string `json:"runtime-settings"`

	// MainBranchFields are the keys set that only Contour's main branch
	// reads (loader/mainbranch), where they are set.
	MainBranchFields []mainbranch.Field `json:"-"`
}

// NamespacedName names an object; both parts or neither.
type NamespacedName struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
}

// Set says whether the name was given.
func (n NamespacedName) Set() bool { return n.Name != "" || n.Namespace != "" }

// Gateway is the Gateway Contour serves.
type Gateway struct {
	GatewayRef NamespacedName `json:"gatewayRef"`
}

// ConfigTLSProtocol are TLS versions, ciphers and curves. Its name keeps
// the prefix the others lost with the move from package loader: TLS embeds
// it, so the name is also a field that translate reads.
type ConfigTLSProtocol struct {
	MinimumProtocolVersion string   `json:"minimum-protocol-version"`
	MaximumProtocolVersion string   `json:"maximum-protocol-version"`
	CipherSuites           []string `json:"cipher-suites"`
	ECDHCurves             []string `json:"ecdh-curves"`
}

// TLS is the downstream TLS configuration.
type TLS struct {
	ConfigTLSProtocol   `json:",inline"`
	FallbackCertificate NamespacedName `json:"fallback-certificate"`
	ClientCertificate   NamespacedName `json:"envoy-client-certificate"`
	Fingerprint         *struct {
		JA3 *bool `json:"ja3"`
		JA4 *bool `json:"ja4"`
	} `json:"fingerprint"`
}

// Compression selects the response compressor.
type Compression struct {
	Algorithm string `json:"algorithm"`
}

// Timeouts are the connection and stream timeouts.
type Timeouts struct {
	RequestTimeout                string `json:"request-timeout"`
	ConnectionIdleTimeout         string `json:"connection-idle-timeout"`
	StreamIdleTimeout             string `json:"stream-idle-timeout"`
	MaxConnectionDuration         string `json:"max-connection-duration"`
	DelayedCloseTimeout           string `json:"delayed-close-timeout"`
	ConnectionShutdownGracePeriod string `json:"connection-shutdown-grace-period"`
	ConnectTimeout                string `json:"connect-timeout"`
}

// HeadersPolicy sets and removes headers.
type HeadersPolicy struct {
	Set    map[string]string `json:"set"`
	Remove []string          `json:"remove"`
}

// Policy are the default header policies.
type Policy struct {
	RequestHeaders  HeadersPolicy `json:"request-headers"`
	ResponseHeaders HeadersPolicy `json:"response-headers"`
	ApplyToIngress  bool          `json:"applyToIngress"`
}

// Cluster are upstream cluster settings.
type Cluster struct {
	DNSLookupFamily               string            `json:"dns-lookup-family"`
	MaxRequestsPerConnection      *uint32           `json:"max-requests-per-connection"`
	PerConnectionBufferLimitBytes *uint32           `json:"per-connection-buffer-limit-bytes"`
	CircuitBreakers               *CircuitBreakers  `json:"circuit-breakers"`
	UpstreamTLS                   ConfigTLSProtocol `json:"upstream-tls"`
}

// CircuitBreakers are the default circuit-breaker thresholds. The file
// spells them with dashes, unlike ContourConfiguration's camelCase.
type CircuitBreakers struct {
	MaxConnections        uint32 `json:"max-connections"`
	MaxPendingRequests    uint32 `json:"max-pending-requests"`
	MaxRequests           uint32 `json:"max-requests"`
	MaxRetries            uint32 `json:"max-retries"`
	PerHostMaxConnections uint32 `json:"per-host-max-connections"`
}

// API returns the thresholds as ContourConfiguration holds them, nil for
// nil.
func (c *CircuitBreakers) API() *contourv1alpha1.CircuitBreakers {
	if c == nil {
		return nil
	}
	return &contourv1alpha1.CircuitBreakers{
		MaxConnections:        c.MaxConnections,
		MaxPendingRequests:    c.MaxPendingRequests,
		MaxRequests:           c.MaxRequests,
		MaxRetries:            c.MaxRetries,
		PerHostMaxConnections: c.PerHostMaxConnections,
	}
}

// Network are network settings.
type Network struct {
	XffNumTrustedHops    uint32 `json:"num-trusted-hops"`
	EnvoyAdminPort       int    `json:"admin-port"`
	StripTrailingHostDot bool   `json:"strip-trailing-host-dot"`
}

// Listener are listener settings.
type Listener struct {
	ConnectionBalancer            string  `json:"connection-balancer"`
	MaxRequestsPerConnection      *uint32 `json:"max-requests-per-connection"`
	PerConnectionBufferLimitBytes *uint32 `json:"per-connection-buffer-limit-bytes"`
	SocketOptions                 struct {
		TOS          int32 `json:"tos"`
		TrafficClass int32 `json:"traffic-class"`
	} `json:"socket-options"`
	MaxRequestsPerIOCycle                *uint32 `json:"max-requests-per-io-cycle"`
	HTTP2MaxConcurrentStreams            *uint32 `json:"http2-max-concurrent-streams"`
	MaxConnectionsPerListener            *uint32 `json:"max-connections-per-listener"`
	MaxConnectionsToAcceptPerSocketEvent *uint32 `json:"max-connections-to-accept-per-socket-event"`
}

// RateLimitService is the global rate limit service.
type RateLimitService struct {
	ExtensionService             string                           `json:"extensionService"`
	Domain                       string                           `json:"domain"`
	FailOpen                     bool                             `json:"failOpen"`
	EnableXRateLimitHeaders      bool                             `json:"enableXRateLimitHeaders"`
	EnableResourceExhaustedCode  bool                             `json:"enableResourceExhaustedCode"`
	DefaultGlobalRateLimitPolicy *contourv1.GlobalRateLimitPolicy `json:"defaultGlobalRateLimitPolicy"`
}

// GlobalExtAuth is the global external authorization server.
// HTTPSettings are read with the HTTPProxy field names (pathPrefix...), as
// Contour documents them.
type GlobalExtAuth struct {
	ExtensionService string                                `json:"extensionService"`
	ServiceType      string                                `json:"serviceType"`
	HTTPSettings     *mainbranch.HTTPAuthorizationSettings `json:"httpSettings"`
	AuthPolicy       *struct {
		Disabled bool              `json:"disabled"`
		Context  map[string]string `json:"context"`
	} `json:"authPolicy"`
	ResponseTimeout string                                       `json:"responseTimeout"`
	FailOpen        bool                                         `json:"failOpen"`
	WithRequestBody *contourv1.AuthorizationServerBufferSettings `json:"withRequestBody"`
}

// Metrics are the metrics and health servers.
type Metrics struct {
	Contour MetricsServer `json:"contour"`
	Envoy   MetricsServer `json:"envoy"`
}

// MetricsServer is one metrics server.
type MetricsServer struct {
	Address    string `json:"address"`
	Port       int    `json:"port"`
	ServerCert string `json:"server-certificate-path"`
	ServerKey  string `json:"server-key-path"`
	CABundle   string `json:"ca-certificate-path"`
}

// Address is an address and port.
type Address struct {
	Address string `json:"address"`
	Port    int    `json:"port"`
}

// Tracing is the tracing configuration.
type Tracing struct {
	IncludePodDetail *bool   `json:"includePodDetail"`
	ServiceName      *string `json:"serviceName"`
	OverallSampling  *string `json:"overallSampling"`
	ClientSampling   *string `json:"clientSampling"`
	RandomSampling   *string `json:"randomSampling"`
	MaxPathTagLength *uint32 `json:"maxPathTagLength"`
	CustomTags       []struct {
		TagName           string `json:"tagName"`
		Literal           string `json:"literal"`
		RequestHeaderName string `json:"requestHeaderName"`
	} `json:"customTags"`
	ExtensionService string `json:"extensionService"`
}

// Decode decodes the root of a Contour configuration file
// read from name (nil for an empty file) and applies Contour's checks.
// Errors name the file and line.
func Decode(name string, root *yaml.Node) (*Config, error) {
	cfg := &Config{}
	if root == nil {
		return cfg, nil // an empty file is Contour's defaults
	}
	var errs []error
	for _, fe := range manifest.DecodeInto(root, cfg) {
		errs = append(errs, &manifest.Error{Source: manifest.Source{File: name, Line: fe.Line}, Kind: "configuration", Msg: fe.Msg})
	}
	if len(errs) == 0 {
		if err := validateContourConfig(cfg); err != nil {
			errs = append(errs, &manifest.Error{Source: manifest.Source{File: name}, Kind: "configuration", Msg: err.Error()})
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	cfg.MainBranchFields = mainbranch.ConfigFields(name, root)
	return cfg, nil
}

// validateContourConfig applies the checks Contour makes at start-up.
func validateContourConfig(c *Config) error {
	oneOf := func(field, v string, allowed ...string) error {
		if v == "" {
			return nil
		}
		for _, a := range allowed {
			if v == a {
				return nil
			}
		}
		return fmt.Errorf("%s: invalid value %q, want one of %q", field, v, allowed)
	}
	checks := []error{
		oneOf("accesslog-format", c.AccessLogFormat, "envoy", "json"),
		oneOf("accesslog-level", c.AccessLogLevel, "info", "error", "critical", "disabled"),
		oneOf("compression.algorithm", c.Compression.Algorithm, "gzip", "brotli", "zstd", "disabled"),
		oneOf("serverHeaderTransformation", c.ServerHeaderTransformation, "overwrite", "append_if_absent", "pass_through"),
		oneOf("cluster.dns-lookup-family", c.Cluster.DNSLookupFamily, "auto", "v4", "v6", "all"),
		oneOf("listener.connection-balancer", c.Listener.ConnectionBalancer, "exact"),
		oneOf("globalExtAuth.serviceType", c.GlobalExtAuth.ServiceType, "grpc", "http"),
		oneOf("tls.minimum-protocol-version", c.TLS.MinimumProtocolVersion, "1.2", "1.3"),
		oneOf("tls.maximum-protocol-version", c.TLS.MaximumProtocolVersion, "1.2", "1.3"),
	}
	for _, v := range c.DefaultHTTPVersions {
		checks = append(checks, oneOf("default-http-versions", strings.ToLower(v), "http/1.1", "http/2"))
	}
	for _, pair := range []struct {
		field string
		n     NamespacedName
	}{{"tls.fallback-certificate", c.TLS.FallbackCertificate}, {"tls.envoy-client-certificate", c.TLS.ClientCertificate}} {
		if pair.n.Set() && (pair.n.Name == "" || pair.n.Namespace == "") {
			checks = append(checks, fmt.Errorf("%s: name and namespace must both be defined", pair.field))
		}
	}
	if g := c.Gateway; g != nil && (g.GatewayRef.Name == "" || g.GatewayRef.Namespace == "") {
		checks = append(checks, errors.New("gateway.gatewayRef: name and namespace must both be defined"))
	}
	return errors.Join(checks...)
}
