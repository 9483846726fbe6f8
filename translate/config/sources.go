package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	contourv1alpha1 "github.com/projectcontour/contour/apis/projectcontour/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/dag"
)

// Where the configuration comes from: the configuration file (Sources.Config),
// a ContourConfiguration object among the inputs (Sources.ContourConfiguration),
// or, when neither is given, a `contour` ConfigMap among the inputs holding
// contour.yaml. `contour serve` flags (Sources.Flags) are then applied.

// ServeFlags are the `contour serve` flags that change Envoy's configuration.
// Zero values are "not given".
type ServeFlags struct {
	HTTPAddress, HTTPSAddress string
	HTTPPort, HTTPSPort       int
	UseProxyProtocol          bool
	// AccessLogFormat is --accesslog-format ("envoy" or "json").
	AccessLogFormat string
	// WatchNamespaces restricts the namespaced objects seen to these.
	WatchNamespaces []string
	// DisabledFeatures are kinds never watched: extensionservices,
	// tlsroutes, grpcroutes, tcproutes, backendtlspolicies.
	DisabledFeatures []string
}

// Sources are where a translation's configuration comes from (translate's
// Options of the same names).
type Sources struct {
	// Config is Contour's configuration file, when given.
	Config *loader.ContourConfig
	// ContourConfiguration names a ContourConfiguration among the inputs
	// whose spec is the configuration instead; exclusive with Config.
	ContourConfiguration *types.NamespacedName
	// ConfigMap, without Config and ContourConfiguration, is the ConfigMap
	// whose key is the configuration file, instead of the `contour` one.
	ConfigMap *ConfigMapRef
	// RuntimeSettings, without the others, is a ContourDeployment's
	// runtimeSettings, the configuration of the Gateway's Contour.
	RuntimeSettings *contourv1alpha1.ContourConfigurationSpec
	// Gateway names the Gateway in RuntimeSettings' errors.
	Gateway *types.NamespacedName
	// Flags are the `contour serve` flags; given ones override the file.
	Flags ServeFlags
}

// ConfigMapName and ConfigMapKey locate Contour's configuration file in a
// ConfigMap, as Contour's deployment mounts it.
const (
	ConfigMapName = "contour"
	ConfigMapKey  = "contour.yaml"
)

// Resolve picks the configuration source, applies flags and returns the
// settings, the configuration file they came from (nil: none, or a
// ContourConfiguration) and the notices they call for.
func Resolve(objs []loader.Object, src Sources) (*Settings, *loader.ContourConfig, []Notice, error) {
	if err := src.Flags.Validate(); err != nil {
		return nil, nil, nil, err
	}
	var notices []Notice
	cfg := src.Config
	var s *Settings
	var err error
	switch {
	case src.RuntimeSettings != nil && cfg == nil && src.ContourConfiguration == nil:
		// The provisioner's ContourConfiguration for a Gateway is the
		// ContourDeployment's runtimeSettings.
		if s, err = settingsFromCRD(src.RuntimeSettings, nil); err != nil {
			return nil, nil, nil, fmt.Errorf("ContourDeployment runtimeSettings of Gateway %s: %w", src.Gateway, err)
		}
		return s, nil, nil, nil
	case src.ContourConfiguration != nil && cfg != nil:
		return nil, nil, nil, errors.New("cannot specify both --contour-config and --config-path")
	case src.ContourConfiguration != nil:
		cc, found := FindContourConfiguration(objs, *src.ContourConfiguration)
		if cc == nil {
			return nil, nil, nil, fmt.Errorf("error getting contour configuration %s: ContourConfiguration not found in the input", *src.ContourConfiguration)
		}
		if s, err = settingsFromCRD(&cc.Spec, found.Extensions); err != nil {
			return nil, nil, nil, ObjectErrors(found, "ContourConfiguration "+src.ContourConfiguration.String(), err)
		}
		f := src.Flags
		if f.HTTPAddress != "" || f.HTTPSAddress != "" || f.HTTPPort != 0 || f.HTTPSPort != 0 || f.UseProxyProtocol || f.AccessLogFormat != "" {
			notices = append(notices, Notice{Kind: "configuration", Msg: "listener and access log flags are ignored with a ContourConfiguration, as in Contour: its spec.envoy settings apply"})
		}
		return s, nil, notices, nil
	case cfg == nil:
		if cm, found := FindConfigMap(objs, src.ConfigMap); found != nil {
			key, why := ConfigMapKey, "no --config-path or --contour-config given"
			if r := src.ConfigMap; r != nil && r.Via != "" {
				key, why = r.Key, r.Via
			}
			parsed, err := ParseConfigMap(cm, found, key)
			if err != nil {
				return nil, nil, nil, err
			}
			cfg = parsed
			notices = append(notices, Notice{Source: found.Source, Kind: "ConfigMap", Name: cm.Namespace + "/" + cm.Name,
				Msg: "using its " + key + " as Contour's configuration file (" + why + ")"})
			notices = append(notices, configMapMainBranchNotices(cfg, found)...)
		}
	default:
		notices = append(notices, configMainBranchNotices(cfg)...)
	}
	if s, err = settingsFromFile(cfg); err != nil {
		return nil, nil, nil, err
	}
	f := src.Flags
	if f.HTTPAddress != "" {
		s.HTTPAddress = f.HTTPAddress
	}
	if f.HTTPPort != 0 {
		s.HTTPPort = uint32(f.HTTPPort)
	}
	if f.HTTPSAddress != "" {
		s.HTTPSAddress = f.HTTPSAddress
	}
	if f.HTTPSPort != 0 {
		s.HTTPSPort = uint32(f.HTTPSPort)
	}
	if f.UseProxyProtocol {
		s.UseProxyProtocol = true
	}
	if f.AccessLogFormat != "" {
		if cfg != nil {
			// Contour reads the configuration file after its flags and
			// replaces its whole file-backed settings, this one included.
			notices = append(notices, Notice{Kind: "configuration", Msg: "--accesslog-format is ignored with a configuration file, as in Contour: the file's accesslog-format (default envoy) applies"})
		} else {
			if f.AccessLogFormat != "envoy" && f.AccessLogFormat != "json" {
				return nil, nil, nil, fmt.Errorf("--accesslog-format: invalid access log format %q", f.AccessLogFormat)
			}
			s.AccessLogFormat = f.AccessLogFormat
		}
	}
	return s, cfg, notices, nil
}

func FindContourConfiguration(objs []loader.Object, name types.NamespacedName) (*contourv1alpha1.ContourConfiguration, *loader.Object) {
	for i, o := range objs {
		if cc, ok := o.Obj.(*contourv1alpha1.ContourConfiguration); ok && cc.Namespace == name.Namespace && cc.Name == name.Name {
			return cc, &objs[i]
		}
	}
	return nil, nil
}

// ObjectErrors prefixes each of the errors err joins with "file:line: what: ",
// so that each names the object it is about, as loader errors do.
func ObjectErrors(o *loader.Object, what string, err error) error {
	prefix := what + ": "
	if src := o.Source.String(); src != "" {
		prefix = src + ": " + prefix
	}
	var out []error
	var add func(error)
	add = func(e error) {
		if multi, ok := e.(interface{ Unwrap() []error }); ok {
			for _, p := range multi.Unwrap() {
				add(p)
			}
		} else if e != nil {
			out = append(out, fmt.Errorf("%s%w", prefix, e))
		}
	}
	add(err)
	return errors.Join(out...)
}

// ConfigMapRef names the ConfigMap holding an instance's configuration
// file, and its key.
type ConfigMapRef struct {
	Namespace, Name, Key string
	// Via says how the instance reads it, for the notice: "mounted at
	// --config-path /config/contour.yaml of Deployment ns/contour".
	Via string
}

// FindConfigMap returns the ConfigMap ref names with its key, or without a
// ref the one `contour` ConfigMap with a contour.yaml key; with several,
// the first by namespace.
func FindConfigMap(objs []loader.Object, ref *ConfigMapRef) (*corev1.ConfigMap, *loader.Object) {
	if ref != nil {
		for i, o := range objs {
			if cm, ok := o.Obj.(*corev1.ConfigMap); ok && cm.Namespace == ref.Namespace && cm.Name == ref.Name {
				if _, has := cm.Data[ref.Key]; has {
					return cm, &objs[i]
				}
			}
		}
		return nil, nil
	}
	var found []loader.Object
	for _, o := range objs {
		if cm, ok := o.Obj.(*corev1.ConfigMap); ok && cm.Name == ConfigMapName {
			if _, has := cm.Data[ConfigMapKey]; has {
				found = append(found, o)
			}
		}
	}
	if len(found) == 0 {
		return nil, nil
	}
	sort.Slice(found, func(i, j int) bool { return found[i].Obj.GetNamespace() < found[j].Obj.GetNamespace() })
	return found[0].Obj.(*corev1.ConfigMap), &found[0]
}

// ParseConfigMap reads the ConfigMap's key as strictly as a configuration
// file.
func ParseConfigMap(cm *corev1.ConfigMap, o *loader.Object, key string) (*loader.ContourConfig, error) {
	return ParseContourConfig(fmt.Sprintf("%s (ConfigMap %s/%s, key %s)", o.Source, cm.Namespace, cm.Name, key), []byte(cm.Data[key]))
}

// ParseContourConfig reads a Contour configuration file's contents.
// Errors name the file and line. (The loader reads files by path; the
// contents go through a temporary file.)
func ParseContourConfig(name string, data []byte) (*loader.ContourConfig, error) {
	dir, err := os.MkdirTemp("", "contourc-config-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, ConfigMapKey)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return nil, err
	}
	cfg, err := loader.LoadContourConfig(path, loader.Options{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return cfg, nil
}

// overrideListener applies the set fields of a ContourConfiguration's
// envoy.http or envoy.https listener (nil: none).
func overrideListener(l *contourv1alpha1.EnvoyListener, address *string, port *uint32, accessLog *string) {
	if l == nil {
		return
	}
	if l.Address != "" {
		*address = l.Address
	}
	if l.Port != 0 {
		*port = uint32(l.Port)
	}
	if l.AccessLog != "" {
		*accessLog = l.AccessLog
	}
}

// settingsFromCRD maps a ContourConfiguration's spec onto the settings, with
// the CRD path's defaults: no connection idle timeout, no connect timeout
// (clusters keep Contour's 2s). ext are the object's fields the Go type
// lacks (globalExtAuth's serviceType and httpSettings).
func settingsFromCRD(spec *contourv1alpha1.ContourConfigurationSpec, ext *loader.Extensions) (*Settings, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	s := Defaults()
	s.Timeouts.ConnectionIdleTimeout = dag.Timeout{}
	s.ConnectTimeout = 0
	var errs []error
	if e := spec.Envoy; e != nil {
		if l := e.Listener; l != nil {
			s.UseProxyProtocol = l.UseProxyProto != nil && *l.UseProxyProto
			if l.Compression != nil && l.Compression.Algorithm != "" {
				s.Compression = string(l.Compression.Algorithm)
			}
			s.AllowChunkedLength = l.DisableAllowChunkedLength == nil || !*l.DisableAllowChunkedLength
			s.MergeSlashes = l.DisableMergeSlashes == nil || !*l.DisableMergeSlashes
			if l.ServerHeaderTransformation != "" {
				s.ServerHeaderTransformation = string(l.ServerHeaderTransformation)
			}
			s.ConnectionBalancer = l.ConnectionBalancer
			s.MaxRequestsPerConnection = l.MaxRequestsPerConnection
			s.PerConnectionBufferLimitBytes = l.PerConnectionBufferLimitBytes
			if t := l.TLS; t != nil {
				s.TLS = mergeTLS(s.TLS, loader.ConfigTLSProtocol{MinimumProtocolVersion: t.MinimumProtocolVersion, MaximumProtocolVersion: t.MaximumProtocolVersion, CipherSuites: t.CipherSuites})
			}
			if so := l.SocketOptions; so != nil {
				s.TOS, s.TrafficClass = so.TOS, so.TrafficClass
			}
			s.MaxRequestsPerIOCycle = l.MaxRequestsPerIOCycle
			s.HTTP2MaxConcurrentStreams = l.HTTP2MaxConcurrentStreams
			s.MaxConnectionsPerListener = l.MaxConnectionsPerListener
		}
		overrideListener(e.HTTPListener, &s.HTTPAddress, &s.HTTPPort, &s.HTTPAccessLog)
		overrideListener(e.HTTPSListener, &s.HTTPSAddress, &s.HTTPSPort, &s.HTTPSAccessLog)
		errs = append(errs, validateCRDListeners(e, s))
		if h := e.Health; h != nil {
			if h.Address != "" {
				s.Health.Address = h.Address
			}
			if h.Port != 0 {
				s.Health.Port = h.Port
			}
		}
		if m := e.Metrics; m != nil {
			if m.Address != "" {
				s.Metrics.Address = m.Address
			}
			if m.Port != 0 {
				s.Metrics.Port = m.Port
			}
			if t := m.TLS; t != nil {
				s.Metrics.TLS, s.Metrics.CertFile, s.Metrics.KeyFile, s.Metrics.CAFile = true, t.CertFile, t.KeyFile, t.CAFile
			}
		}
		if c := e.ClientCertificate; c != nil && c.Name != "" {
			s.ClientCertificate = &types.NamespacedName{Namespace: c.Namespace, Name: c.Name}
		}
		if lg := e.Logging; lg != nil {
			if lg.AccessLogFormat != "" {
				s.AccessLogFormat = string(lg.AccessLogFormat)
			}
			s.AccessLogFormatString = lg.AccessLogFormatString
			if len(lg.AccessLogJSONFields) > 0 {
				s.AccessLogJSONFields = lg.AccessLogJSONFields
			}
			if lg.AccessLogLevel != "" {
				s.AccessLogLevel = string(lg.AccessLogLevel)
			}
		}
		for _, v := range e.DefaultHTTPVersions {
			switch v {
			case contourv1alpha1.HTTPVersion1:
				s.DefaultHTTPVersions = append(s.DefaultHTTPVersions, "http/1.1")
			case contourv1alpha1.HTTPVersion2:
				s.DefaultHTTPVersions = append(s.DefaultHTTPVersions, "http/2")
			}
		}
		if t := e.Timeouts; t != nil {
			str := func(p *string) string {
				if p == nil {
					return ""
				}
				return *p
			}
			errs = append(errs, parseTimeouts(&s.Timeouts, &s.ConnectTimeout, map[string]string{
				"request-timeout": str(t.RequestTimeout), "connection-idle-timeout": str(t.ConnectionIdleTimeout),
				"stream-idle-timeout": str(t.StreamIdleTimeout), "max-connection-duration": str(t.MaxConnectionDuration),
				"delayed-close-timeout": str(t.DelayedCloseTimeout), "connection-shutdown-grace-period": str(t.ConnectionShutdownGracePeriod),
				"connect-timeout": str(t.ConnectTimeout),
			}, "spec.envoy.timeouts."))
		}
		if c := e.Cluster; c != nil {
			if c.DNSLookupFamily != "" {
				if err := c.DNSLookupFamily.Validate(); err != nil {
					errs = append(errs, err)
				}
				s.DNSLookupFamily = string(c.DNSLookupFamily)
			}
			s.ClusterMaxRequestsPerConnection = c.MaxRequestsPerConnection
			s.ClusterPerConnectionBufferLimitBytes = c.PerConnectionBufferLimitBytes
			s.CircuitBreakers = configCircuitBreakers(c.GlobalCircuitBreakerDefaults)
			if t := c.UpstreamTLS; t != nil {
				s.UpstreamTLS = mergeTLS(s.UpstreamTLS, loader.ConfigTLSProtocol{MinimumProtocolVersion: t.MinimumProtocolVersion, MaximumProtocolVersion: t.MaximumProtocolVersion, CipherSuites: t.CipherSuites})
			}
		}
		if n := e.Network; n != nil {
			if n.XffNumTrustedHops != nil {
				s.XffNumTrustedHops = *n.XffNumTrustedHops
			}
			if n.EnvoyAdminPort != nil && *n.EnvoyAdminPort != 0 {
				s.EnvoyAdminPort = *n.EnvoyAdminPort
			}
			s.StripTrailingHostDot = n.EnvoyStripTrailingHostDot != nil && *n.EnvoyStripTrailingHostDot
		}
		if h := e.OMEnforcedHealth; h != nil {
			s.OMEnforcedHealth = &AddressPort{h.Address, h.Port}
		}
	}
	if g := spec.Gateway; g != nil {
		s.Gateway = &types.NamespacedName{Namespace: g.GatewayRef.Namespace, Name: g.GatewayRef.Name}
	}
	if i := spec.Ingress; i != nil {
		s.IngressClassNames = i.ClassNames
	}
	if h := spec.HTTPProxy; h != nil {
		s.RootNamespaces = h.RootNamespaces
		s.DisablePermitInsecure = h.DisablePermitInsecure != nil && *h.DisablePermitInsecure
		if f := h.FallbackCertificate; f != nil && f.Name != "" {
			s.FallbackCertificate = &types.NamespacedName{Namespace: f.Namespace, Name: f.Name}
		}
	}
	s.EnableExternalNameService = spec.EnableExternalNameService != nil && *spec.EnableExternalNameService
	if a := spec.GlobalExternalAuthorization; a != nil {
		s.GlobalExtAuth, s.GlobalExtAuthExtensions = a, ext.AuthorizationOf()
		errs = append(errs, validateGlobalAuth(a, s.GlobalExtAuthExtensions))
	}
	if r := spec.RateLimitService; r != nil {
		s.RateLimitService = &RateLimitSettings{
			ExtensionService: types.NamespacedName{Namespace: r.ExtensionService.Namespace, Name: r.ExtensionService.Name},
			Domain:           r.Domain, FailOpen: r.FailOpen != nil && *r.FailOpen,
			EnableXRateLimitHeaders:      r.EnableXRateLimitHeaders != nil && *r.EnableXRateLimitHeaders,
			EnableResourceExhaustedCode:  r.EnableResourceExhaustedCode != nil && *r.EnableResourceExhaustedCode,
			DefaultGlobalRateLimitPolicy: r.DefaultGlobalRateLimitPolicy,
		}
	}
	if p := spec.Policy; p != nil {
		if h := p.RequestHeadersPolicy; h != nil {
			s.RequestHeaders = configHeadersPolicy(h.Set, h.Remove)
		}
		if h := p.ResponseHeadersPolicy; h != nil {
			s.ResponseHeaders = configHeadersPolicy(h.Set, h.Remove)
		}
		s.ApplyToIngress = p.ApplyToIngress != nil && *p.ApplyToIngress
	}
	if tr := spec.Tracing; tr != nil {
		ts := &TracingSettings{
			ServiceName:      "contour",
			OverallSampling:  samplingRate(tr.OverallSampling),
			ClientSampling:   100,
			RandomSampling:   100,
			MaxPathTagLength: 256,
			IncludePodDetail: tr.IncludePodDetail == nil || *tr.IncludePodDetail,
		}
		if tr.ExtensionService != nil {
			ts.ExtensionService = types.NamespacedName{Namespace: tr.ExtensionService.Namespace, Name: tr.ExtensionService.Name}
		}
		if tr.ServiceName != nil {
			ts.ServiceName = *tr.ServiceName
		}
		if tr.MaxPathTagLength != nil {
			ts.MaxPathTagLength = *tr.MaxPathTagLength
		}
		for _, ct := range tr.CustomTags {
			if ct != nil {
				ts.CustomTags = append(ts.CustomTags, TracingTag{TagName: ct.TagName, Literal: ct.Literal, RequestHeaderName: ct.RequestHeaderName})
			}
		}
		s.Tracing = ts
	}
	errs = append(errs, s.validate())
	return s, errors.Join(errs...)
}
