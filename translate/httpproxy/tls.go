package httpproxy

import (
	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/dag/index"
	"github.com/contourc/contourc/translate/internal/status"
)

// The TLS side of an HTTPProxy root: its secure virtual host, client
// certificate validation and TCP proxying, each checked as Contour checks
// them before anything is added to the DAG.

// secureVirtualHost validates a root's TLS settings and creates its secure
// virtual host; ok is false when an error stops the proxy.
func (p *Processor) secureVirtualHost(st *status.Proxy, proxy *contourv1.HTTPProxy) (*dag.SecureVirtualHost, bool) {
	tls := proxy.Spec.VirtualHost.TLS
	fail := func(reason, format string, args ...any) (*dag.SecureVirtualHost, bool) {
		st.AddError("TLSError", reason, format, args...)
		return nil, false
	}
	if tls.Passthrough && tls.EnableFallbackCertificate {
		// Reported, but Contour still programs the proxy.
		st.AddError("TLSError", "TLSIncompatibleFeatures", "Spec.VirtualHost.TLS: both Passthrough and enableFallbackCertificate were specified")
	}
	switch {
	case tls.SecretName != "" && tls.Passthrough:
		return fail("TLSConfigNotValid", "Spec.VirtualHost.TLS: both Passthrough and SecretName were specified")
	case tls.SecretName == "" && !tls.Passthrough:
		return fail("TLSConfigNotValid", "Spec.VirtualHost.TLS: neither Passthrough nor SecretName were specified")
	case tls.Passthrough && tls.ClientValidation != nil:
		return fail("TLSIncompatibleFeatures", "Spec.VirtualHost.TLS passthrough cannot be combined with tls.clientValidation")
	}
	https := p.DAG.Listener("https")
	if https == nil {
		st.AddError("ListenerError", "ErrorIdentifyingListener", "more than one https listener configured")
		return nil, false
	}
	if tls.Passthrough {
		return https.EnsureSecureVirtualHost(proxy.Spec.VirtualHost.Fqdn), true
	}
	secret, err := p.Index.LookupTLSSecret(index.SecretReference(tls.SecretName, "", proxy.Namespace), proxy.Namespace)
	if err != nil {
		if _, ok := err.(index.DelegationNotPermittedError); ok {
			return fail("DelegationNotPermitted", "Spec.VirtualHost.TLS Secret %q certificate delegation not permitted", tls.SecretName)
		}
		return fail("SecretNotValid", "Spec.VirtualHost.TLS Secret %q is invalid: %s", tls.SecretName, err)
	}
	minTLS := dag.TLSVersion(tls.MinimumProtocolVersion, "1.2")
	maxTLS := dag.TLSVersion(tls.MaximumProtocolVersion, "1.3")
	if maxTLS < minTLS {
		return fail("TLSConfigNotValid", "Spec.Virtualhost.TLS the minimum protocol version is greater than the maximum protocol version")
	}
	svh := https.EnsureSecureVirtualHost(proxy.Spec.VirtualHost.Fqdn)
	svh.Secret, svh.MinTLSVersion, svh.MaxTLSVersion = secret, minTLS, maxTLS
	vh := proxy.Spec.VirtualHost
	switch {
	case tls.EnableFallbackCertificate && tls.ClientValidation != nil:
		return fail("TLSIncompatibleFeatures", "Spec.Virtualhost.TLS fallback & client validation are incompatible")
	case tls.EnableFallbackCertificate && vh.Authorization != nil:
		return fail("TLSIncompatibleFeatures", "Spec.Virtualhost.TLS fallback & client authorization are incompatible")
	case tls.EnableFallbackCertificate && len(vh.JWTProviders) > 0:
		return fail("TLSIncompatibleFeatures", "Spec.Virtualhost.TLS fallback & JWT providers are incompatible")
	case tls.EnableFallbackCertificate && (p.Settings == nil || p.Settings.FallbackCertificate == nil):
		return fail("FallbackNotPresent", "Spec.Virtualhost.TLS enabled fallback but the fallback Certificate Secret is not configured in Contour configuration file")
	case tls.EnableFallbackCertificate:
		ref := p.Settings.FallbackCertificate
		sec, err := p.Index.LookupTLSSecret(*ref, proxy.Namespace)
		if _, denied := err.(index.DelegationNotPermittedError); denied {
			return fail("FallbackNotDelegated", "Spec.VirtualHost.TLS Secret %q is not configured for certificate delegation", ref)
		} else if err != nil {
			return fail("FallbackNotValid", "Spec.Virtualhost.TLS Secret %q fallback certificate is invalid: %s", ref, err)
		}
		svh.FallbackCertificate = sec
	}
	if cv := tls.ClientValidation; cv != nil {
		v, ok := p.clientValidation(st, proxy, cv)
		if !ok {
			return nil, false
		}
		svh.ClientValidation = v
	}
	auth, ok := p.externalAuthorization(st, proxy)
	if !ok {
		return nil, false
	}
	svh.Authorization = auth
	if !p.jwtProviders(st, proxy, svh) {
		return nil, false
	}
	return svh, true
}

// clientValidation resolves the CA and CRL of a secure virtual host's client
// certificate validation. A missing CA is reported but, as in Contour, does
// not stop the proxy.
func (p *Processor) clientValidation(st *status.Proxy, proxy *contourv1.HTTPProxy, cv *contourv1.DownstreamValidation) (*dag.ClientValidation, bool) {
	out := &dag.ClientValidation{SkipValidation: cv.SkipClientCertValidation, Optional: cv.OptionalClientCertificate}
	if f := cv.ForwardClientCertificate; f != nil {
		out.Forward = &dag.ForwardClientCert{Subject: f.Subject, Cert: f.Cert, Chain: f.Chain, DNS: f.DNS, URI: f.URI}
	}
	lookup := func(ref, what string, get func(types.NamespacedName, string) ([]byte, error)) ([]byte, bool) {
		name := index.SecretReference(ref, "", proxy.Namespace)
		data, err := get(name, proxy.Namespace)
		if _, denied := err.(index.DelegationNotPermittedError); denied {
			st.AddError("TLSError", "DelegationNotPermitted", "Spec.VirtualHost.TLS %s Secret %q is invalid: %s", what, ref, err)
			return nil, false
		}
		if err != nil {
			st.AddError("TLSError", "ClientValidationInvalid", "Spec.VirtualHost.TLS client validation is invalid: invalid %s Secret %q: %s", what, name, err)
			return nil, false
		}
		return data, true
	}
	var ok bool
	switch {
	case cv.CACertificate != "":
		if out.CACert, ok = lookup(cv.CACertificate, "CA", p.Index.LookupCASecret); !ok {
			return nil, false
		}
	case !cv.SkipClientCertValidation:
		st.AddError("TLSError", "ClientValidationInvalid", "Spec.VirtualHost.TLS client validation is invalid: CA Secret must be specified")
	}
	if cv.CertificateRevocationList != "" {
		if out.CRL, ok = lookup(cv.CertificateRevocationList, "CRL", p.Index.LookupCRLSecret); !ok {
			return nil, false
		}
		out.OnlyVerifyLeafCertCRL = cv.OnlyVerifyLeafCertCrl
	}
	return out, true
}

// tcpProxy resolves a proxy's tcpproxy: services of its own, or those of
// the non-root proxy it includes (followed transitively).
func (p *Processor) tcpProxy(st *status.Proxy, proxy *contourv1.HTTPProxy, path *includePath) (*dag.TCPProxy, bool) {
	tp := proxy.Spec.TCPProxy
	path.push(index.NamespacedName(proxy))
	defer path.pop()
	include := tp.Include
	if include == nil {
		include = tp.IncludesDeprecated
	}
	fail := func(errType, reason, format string, args ...any) (*dag.TCPProxy, bool) {
		st.AddError(errType, reason, format, args...)
		return nil, false
	}
	if len(tp.Services) > 0 && include != nil {
		return fail("TCPProxyError", "NoServicesAndInclude", "cannot specify services and include in the same httpproxy")
	}
	lbPolicy := ""
	if lb := tp.LoadBalancerPolicy; lb != nil {
		switch lb.Strategy {
		case "WeightedLeastRequest", "Random":
			lbPolicy = lb.Strategy
		case "Cookie", "RequestHash":
			// Hashing needs HTTP; the strategy is ignored, not its policies.
			st.AddWarning("TCPProxyError", "IgnoredField", "ignoring field %q; %s load balancer policy is not supported for TCPProxies", "Spec.TCPProxy.LoadBalancerPolicy", lb.Strategy)
		}
	}
	if len(tp.Services) > 0 {
		out := &dag.TCPProxy{}
		health := tcpHealthCheck(tp.HealthCheckPolicy)
		for _, svc := range tp.Services {
			healthPort := svc.Port
			if health != nil && svc.HealthPort > 0 {
				healthPort = svc.HealthPort
			}
			s, err := p.Index.ServiceWithHealthPort(types.NamespacedName{Namespace: proxy.Namespace, Name: svc.Name}, svc.Port, healthPort)
			if err != nil {
				return fail("TCPProxyError", "ServiceUnresolvedReference", "Spec.TCPProxy unresolved service reference: %s", err)
			}
			protocol := s.Protocol
			if svc.Protocol != nil {
				if protocol = *svc.Protocol; protocol != "h2" && protocol != "h2c" && protocol != "tls" {
					return fail("ServiceError", "UnsupportedProtocol", "unsupported protocol: %v", protocol)
				}
			}
			c := &dag.Cluster{Upstream: s, Weight: uint32(svc.Weight), Protocol: protocol, LoadBalancerPolicy: lbPolicy, TCPHealthCheck: health, SNI: s.ExternalName, HTTPProxyTCP: true}
			if c.ClientCertificate, err = p.Index.ClientCertificate(); err != nil {
				return fail("TLSError", "SecretNotValid", "tls.envoy-client-certificate Secret %q is invalid: %s", p.Settings.ClientCertificate, err)
			}
			if uv := svc.UpstreamValidation; uv != nil && (protocol == "tls" || protocol == "h2") {
				v, err := upstreamValidation(p.Index, uv, proxy.Namespace)
				if e, denied := err.(index.DelegationNotPermittedError); denied {
					return fail("TLSError", "CACertificateNotDelegated", "service.UpstreamValidation.CACertificate Secret %q is not configured for certificate delegation", e.Secret.String())
				} else if err != nil {
					return fail("ServiceError", "TLSUpstreamValidation", "Service [%s:%d] TLS upstream validation policy error: %s", svc.Name, svc.Port, err)
				}
				c.Validation = v
			}
			out.Clusters = append(out.Clusters, c)
		}
		return out, true
	}
	if include == nil {
		return fail("TCPProxyError", "NothingDefined", "either services or inclusion must be specified")
	}
	ns := include.Namespace
	if ns == "" {
		ns = proxy.Namespace
	}
	key := types.NamespacedName{Namespace: ns, Name: include.Name}
	child, ok := p.proxyByName(key)
	switch {
	case !ok:
		return fail("TCPProxyIncludeError", "IncludeNotFound", "include %s/%s not found", ns, include.Name)
	case child.Spec.VirtualHost != nil:
		return fail("TCPProxyIncludeError", "RootIncludesRoot", "root httpproxy cannot include another root httpproxy (%s/%s)", child.Namespace, child.Name)
	}
	p.unorphan(key)
	if path.contains(key) {
		return fail("TCPProxyIncludeError", "IncludeCreatesCycle", "include creates a cycle: %s", path.cycle(key))
	}
	if child.Spec.TCPProxy == nil {
		// Contour finds nothing to do: no error, and nothing is forwarded.
		return nil, true
	}
	return visit(p, key, child.Generation, func(st *status.Proxy) (*dag.TCPProxy, bool) {
		return p.tcpProxy(st, child, path)
	})
}
