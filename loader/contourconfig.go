package loader

import (
	"errors"
	"fmt"
	"strings"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	contourv1alpha1 "github.com/projectcontour/contour/apis/projectcontour/v1alpha1"

	"github.com/contourc/contourc/loader/internal/manifest"
	"github.com/contourc/contourc/loader/mainbranch"
)

// Contour's configuration file (the contour.yaml of the `contour`
// ConfigMap), read as strictly as Contour reads it: an unknown key is an
// error naming its line. The keys are Contour's; values Contour checks are
// checked here (see validateContourConfig), so a file Contour would refuse
// at start-up is refused too.

// ContourConfig is Contour's configuration file.
type ContourConfig struct {
	Debug                      bool                   `json:"debug"`
	InCluster                  bool                   `json:"incluster"`
	Kubeconfig                 string                 `json:"kubeconfig"`
	KubeClientQPS              float32                `json:"kubernetesClientQPS"`
	KubeClientBurst            int                    `json:"kubernetesClientBurst"`
	Server                     struct{}               `json:"server"`
	Gateway                    *ConfigGateway         `json:"gateway"`
	IngressStatusAddress       string                 `json:"ingress-status-address"`
	AccessLogFormat            string                 `json:"accesslog-format"`
	AccessLogFormatString      string                 `json:"accesslog-format-string"`
	AccessLogFields            []string               `json:"json-fields"`
	AccessLogLevel             string                 `json:"accesslog-level"`
	TLS                        ConfigTLS              `json:"tls"`
	DisablePermitInsecure      bool                   `json:"disablePermitInsecure"`
	DisableAllowChunkedLength  bool                   `json:"disableAllowChunkedLength"`
	DisableMergeSlashes        bool                   `json:"disableMergeSlashes"`
	Compression                ConfigCompression      `json:"compression"`
	ServerHeaderTransformation string                 `json:"serverHeaderTransformation"`
	EnableExternalNameService  bool                   `json:"enableExternalNameService"`
	Timeouts                   ConfigTimeouts         `json:"timeouts"`
	Policy                     ConfigPolicy           `json:"policy"`
	EnvoyServiceNamespace      string                 `json:"envoy-service-namespace"`
	EnvoyServiceName           string                 `json:"envoy-service-name"`
	DefaultHTTPVersions        []string               `json:"default-http-versions"`
	Cluster                    ConfigCluster          `json:"cluster"`
	Network                    ConfigNetwork          `json:"network"`
	Listener                   ConfigListener         `json:"listener"`
	RateLimitService           ConfigRateLimitService `json:"rateLimitService"`
	GlobalExtAuth              ConfigGlobalExtAuth    `json:"globalExtAuth"`
	Metrics                    ConfigMetrics          `json:"metrics"`
	Tracing                    *ConfigTracing         `json:"tracing"`
	FeatureFlags               []string               `json:"featureFlags"`
	OMEnforcedHealthListener   *ConfigAddress         `json:"omEnforcedHealthListener"`
	RuntimeSettings            map[string]string      `json:"runtime-settings"`

	// MainBranchFields are the keys set that only Contour's main branch
	// reads (main_branch.go), where they are set.
	MainBranchFields []mainbranch.Field `json:"-"`
}

// ConfigNamespacedName names an object; both parts or neither.
type ConfigNamespacedName struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
}

// Set says whether the name was given.
func (n ConfigNamespacedName) Set() bool { return n.Name != "" || n.Namespace != "" }

// ConfigGateway is the Gateway Contour serves.
type ConfigGateway struct {
	GatewayRef ConfigNamespacedName `json:"gatewayRef"`
}

// ConfigTLSProtocol are TLS versions, ciphers and curves.
type ConfigTLSProtocol struct {
	MinimumProtocolVersion string   `json:"minimum-protocol-version"`
	MaximumProtocolVersion string   `json:"maximum-protocol-version"`
	CipherSuites           []string `json:"cipher-suites"`
	ECDHCurves             []string `json:"ecdh-curves"`
}

// ConfigTLS is the downstream TLS configuration.
type ConfigTLS struct {
	ConfigTLSProtocol   `json:",inline"`
	FallbackCertificate ConfigNamespacedName `json:"fallback-certificate"`
	ClientCertificate   ConfigNamespacedName `json:"envoy-client-certificate"`
	Fingerprint         *struct {
		JA3 *bool `json:"ja3"`
		JA4 *bool `json:"ja4"`
	} `json:"fingerprint"`
}

// ConfigCompression selects the response compressor.
type ConfigCompression struct {
	Algorithm string `json:"algorithm"`
}

// ConfigTimeouts are the connection and stream timeouts.
type ConfigTimeouts struct {
	RequestTimeout                string `json:"request-timeout"`
	ConnectionIdleTimeout         string `json:"connection-idle-timeout"`
	StreamIdleTimeout             string `json:"stream-idle-timeout"`
	MaxConnectionDuration         string `json:"max-connection-duration"`
	DelayedCloseTimeout           string `json:"delayed-close-timeout"`
	ConnectionShutdownGracePeriod string `json:"connection-shutdown-grace-period"`
	ConnectTimeout                string `json:"connect-timeout"`
}

// ConfigHeadersPolicy sets and removes headers.
type ConfigHeadersPolicy struct {
	Set    map[string]string `json:"set"`
	Remove []string          `json:"remove"`
}

// ConfigPolicy are the default header policies.
type ConfigPolicy struct {
	RequestHeaders  ConfigHeadersPolicy `json:"request-headers"`
	ResponseHeaders ConfigHeadersPolicy `json:"response-headers"`
	ApplyToIngress  bool                `json:"applyToIngress"`
}

// ConfigCluster are upstream cluster settings.
type ConfigCluster struct {
	DNSLookupFamily               string                 `json:"dns-lookup-family"`
	MaxRequestsPerConnection      *uint32                `json:"max-requests-per-connection"`
	PerConnectionBufferLimitBytes *uint32                `json:"per-connection-buffer-limit-bytes"`
	CircuitBreakers               *ConfigCircuitBreakers `json:"circuit-breakers"`
	UpstreamTLS                   ConfigTLSProtocol      `json:"upstream-tls"`
}

// ConfigCircuitBreakers are the default circuit-breaker thresholds. The file
// spells them with dashes, unlike ContourConfiguration's camelCase.
type ConfigCircuitBreakers struct {
	MaxConnections        uint32 `json:"max-connections"`
	MaxPendingRequests    uint32 `json:"max-pending-requests"`
	MaxRequests           uint32 `json:"max-requests"`
	MaxRetries            uint32 `json:"max-retries"`
	PerHostMaxConnections uint32 `json:"per-host-max-connections"`
}

// API returns the thresholds as ContourConfiguration holds them, nil for
// nil.
func (c *ConfigCircuitBreakers) API() *contourv1alpha1.CircuitBreakers {
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

// ConfigNetwork are network settings.
type ConfigNetwork struct {
	XffNumTrustedHops    uint32 `json:"num-trusted-hops"`
	EnvoyAdminPort       int    `json:"admin-port"`
	StripTrailingHostDot bool   `json:"strip-trailing-host-dot"`
}

// ConfigListener are listener settings.
type ConfigListener struct {
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

// ConfigRateLimitService is the global rate limit service.
type ConfigRateLimitService struct {
	ExtensionService             string                           `json:"extensionService"`
	Domain                       string                           `json:"domain"`
	FailOpen                     bool                             `json:"failOpen"`
	EnableXRateLimitHeaders      bool                             `json:"enableXRateLimitHeaders"`
	EnableResourceExhaustedCode  bool                             `json:"enableResourceExhaustedCode"`
	DefaultGlobalRateLimitPolicy *contourv1.GlobalRateLimitPolicy `json:"defaultGlobalRateLimitPolicy"`
}

// ConfigGlobalExtAuth is the global external authorization server.
// HTTPSettings are read with the HTTPProxy field names (pathPrefix...), as
// Contour documents them.
type ConfigGlobalExtAuth struct {
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

// ConfigMetrics are the metrics and health servers.
type ConfigMetrics struct {
	Contour ConfigMetricsServer `json:"contour"`
	Envoy   ConfigMetricsServer `json:"envoy"`
}

// ConfigMetricsServer is one metrics server.
type ConfigMetricsServer struct {
	Address    string `json:"address"`
	Port       int    `json:"port"`
	ServerCert string `json:"server-certificate-path"`
	ServerKey  string `json:"server-key-path"`
	CABundle   string `json:"ca-certificate-path"`
}

// ConfigAddress is an address and port.
type ConfigAddress struct {
	Address string `json:"address"`
	Port    int    `json:"port"`
}

// ConfigTracing is the tracing configuration.
type ConfigTracing struct {
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

// LoadContourConfig reads a Contour configuration file. Errors name the
// file and line.
func LoadContourConfig(path string, opts Options) (*ContourConfig, error) {
	name, root, err := readYAMLDocument(path, opts)
	if err != nil {
		return nil, err
	}
	cfg := &ContourConfig{}
	if root == nil {
		return cfg, nil // an empty file is Contour's defaults
	}
	var errs []error
	for _, fe := range manifest.DecodeInto(root, cfg) {
		errs = append(errs, &Error{Source: Source{File: name, Line: fe.Line}, Kind: "configuration", Msg: fe.Msg})
	}
	if len(errs) == 0 {
		if err := validateContourConfig(cfg); err != nil {
			errs = append(errs, &Error{Source: Source{File: name}, Kind: "configuration", Msg: err.Error()})
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	cfg.MainBranchFields = mainbranch.ConfigFields(name, root)
	return cfg, nil
}

// validateContourConfig applies the checks Contour makes at start-up.
func validateContourConfig(c *ContourConfig) error {
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
		n     ConfigNamespacedName
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
