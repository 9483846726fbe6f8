package httpproxy

import (
	"net/url"
	"slices"
	"strconv"
	"time"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/dag/index"
	"github.com/contourc/contourc/translate/internal/status"
)

// JWT verification of HTTPProxy virtual hosts: spec.virtualhost.jwtProviders
// and routes[].jwtVerificationPolicy, as Contour's HTTPProxy processor
// validates them. The Contour API module contourc builds against (v1.33)
// has only remote JWKS sources; a provider's localJWKS, which arrived
// later, comes from the loader's extensions.

// defaultJWKSTimeout is how long Envoy waits for a JWKS unless told.
const defaultJWKSTimeout = time.Second

// defaultDNSLookupFamily is Contour's cluster.dns-lookup-family without a
// configuration file.
const defaultDNSLookupFamily = "auto"

// jwtProviders validates a root's JWT providers in Contour's order and adds
// them to its secure virtual host one by one, as Contour does; false means
// an error stops the proxy.
func (p *Processor) jwtProviders(st *status.Proxy, proxy *contourv1.HTTPProxy, svh *dag.SecureVirtualHost) bool {
	var names []string
	hasDefault := false
	ext := p.Index.HTTPProxyExtensions(proxy)
	for i, jp := range proxy.Spec.VirtualHost.JWTProviders {
		if slices.Contains(names, jp.Name) {
			st.AddError("JWTVerificationError", "DuplicateProviderName", "Spec.VirtualHost.JWTProviders is invalid: duplicate name %s", jp.Name)
			return false
		}
		names = append(names, jp.Name)
		if jp.Default {
			if hasDefault {
				st.AddError("JWTVerificationError", "MultipleDefaultProvidersSpecified", "Spec.VirtualHost.JWTProviders is invalid: at most one provider can be set as the default")
				return false
			}
			hasDefault = true
		}
		provider, ok := p.jwtProvider(st, proxy, jp, ext.LocalJWKSOf(i))
		if !ok {
			return false
		}
		svh.JWTProviders = append(svh.JWTProviders, provider)
	}
	return true
}

// jwtProvider resolves a provider's one JWKS source: local (the CRD's CEL
// rule, which Contour checks again, wants exactly one) or remote.
func (p *Processor) jwtProvider(st *status.Proxy, proxy *contourv1.HTTPProxy, jp contourv1.JWTProvider, local *loader.LocalJWKS) (*dag.JWTProvider, bool) {
	out := &dag.JWTProvider{Name: jp.Name, Issuer: jp.Issuer, Audiences: jp.Audiences, ForwardJWT: jp.ForwardJWT}
	hasRemote, hasLocal := jp.RemoteJWKS.URI != "", local != nil && local.SecretName != ""
	switch {
	case hasRemote && hasLocal:
		st.AddError("JWTVerificationError", "JWKSSourceConflict", "Spec.VirtualHost.JWTProviders for provider %q is invalid: at most one of remoteJWKS or localJWKS may be set", jp.Name)
		return nil, false
	case !hasRemote && !hasLocal:
		st.AddError("JWTVerificationError", "JWKSSourceMissing", "Spec.VirtualHost.JWTProviders for provider %q is invalid: exactly one of remoteJWKS or localJWKS must be set", jp.Name)
		return nil, false
	case hasLocal:
		// The Secret is always the proxy's own namespace's: no delegation.
		jwks, err := p.Index.LookupJWKS(types.NamespacedName{Namespace: proxy.Namespace, Name: local.SecretName}, local.Key)
		if err != nil {
			st.AddError("JWTVerificationError", "LocalJWKSInvalid", "Spec.VirtualHost.JWTProviders.LocalJWKS for provider %q is invalid: %s", jp.Name, err)
			return nil, false
		}
		out.LocalJWKS = jwks
		return out, true
	}
	remote, ok := p.remoteJWKS(st, proxy, jp.RemoteJWKS)
	if !ok {
		return nil, false
	}
	out.RemoteJWKS = remote
	return out, true
}

// remoteJWKS validates a provider's remote JWKS: URI and scheme, upstream
// validation (https only), timeout (default 1s), cache duration, port (from
// the URI, else the scheme's) and DNS lookup family.
func (p *Processor) remoteJWKS(st *status.Proxy, proxy *contourv1.HTTPProxy, rj contourv1.RemoteJWKS) (*dag.RemoteJWKS, bool) {
	fail := func(reason, format string, args ...any) (*dag.RemoteJWKS, bool) {
		st.AddError("JWTVerificationError", reason, format, args...)
		return nil, false
	}
	u, err := url.Parse(rj.URI)
	if err != nil {
		return fail("RemoteJWKSURIInvalid", "Spec.VirtualHost.JWTProviders.RemoteJWKS.URI is invalid: %s", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fail("RemoteJWKSSchemeInvalid", "Spec.VirtualHost.JWTProviders.RemoteJWKS.URI has invalid scheme %q, must be http or https", u.Scheme)
	}
	var validation *dag.UpstreamValidation
	if uv := rj.UpstreamValidation; uv != nil {
		if u.Scheme == "http" {
			return fail("RemoteJWKSUpstreamValidationInvalid", "Spec.VirtualHost.JWTProviders.RemoteJWKS.UpstreamValidation must not be specified when URI scheme is http.")
		}
		validation, err = upstreamValidation(p.Index, uv, proxy.Namespace)
		if e, denied := err.(index.DelegationNotPermittedError); denied {
			return fail("RemoteJWKSCACertificateNotDelegated", "Spec.VirtualHost.JWTProviders.RemoteJWKS.UpstreamValidation.CACertificate Secret %q is not configured for certificate delegation", e.Secret.String())
		} else if err != nil {
			return fail("RemoteJWKSUpstreamValidationInvalid", "Spec.VirtualHost.JWTProviders.RemoteJWKS.UpstreamValidation is invalid: %s", err)
		}
	}
	out := &dag.RemoteJWKS{URI: rj.URI, Timeout: defaultJWKSTimeout}
	if rj.Timeout != "" {
		if out.Timeout, err = time.ParseDuration(rj.Timeout); err != nil {
			return fail("RemoteJWKSTimeoutInvalid", "Spec.VirtualHost.JWTProviders.RemoteJWKS.Timeout is invalid: %s", err)
		}
	}
	if rj.CacheDuration != "" {
		d, err := time.ParseDuration(rj.CacheDuration)
		if err != nil {
			return fail("RemoteJWKSCacheDurationInvalid", "Spec.VirtualHost.JWTProviders.RemoteJWKS.CacheDuration is invalid: %s", err)
		}
		out.CacheDuration = &d
	}
	port := 80
	switch {
	case u.Port() != "":
		// url.Parse only accepts digits; Atoi can still overflow.
		if port, err = strconv.Atoi(u.Port()); err != nil {
			return fail("RemoteJWKSPortInvalid", "Spec.VirtualHost.JWTProviders.RemoteJWKS.URI has an invalid port: %s", err)
		}
	case u.Scheme == "https":
		port = 443
	}
	family := rj.DNSLookupFamily
	switch family {
	case "auto", "v4", "v6", "all":
	case "":
		family = defaultDNSLookupFamily
		if p.Settings != nil {
			family = p.Settings.DNSLookupFamily
		}
	default:
		return fail("RemoteJWKSDNSLookupFamilyInvalid", "Spec.VirtualHost.JWTProviders.RemoteJWKS.DNSLookupFamily has an invalid value %q, must be auto, all, v4 or v6", rj.DNSLookupFamily)
	}
	out.Cluster = &dag.DNSNameCluster{Address: u.Hostname(), Scheme: u.Scheme, Port: port, DNSLookupFamily: family, Validation: validation}
	return out, true
}

// routeJWTProvider sets the provider a route requires: its policy's
// require, none when disabled, else the root's default provider. Asking
// for both is an error that discards the proxy's routes.
func routeJWTProvider(st *status.Proxy, r *dag.Route, root *contourv1.HTTPProxy, route contourv1.Route) bool {
	policy := route.JWTVerificationPolicy
	switch {
	case policy != nil && policy.Require != "" && policy.Disabled:
		st.AddError("JWTVerificationError", "InvalidJWTVerificationPolicy", "route's JWT verification policy cannot specify both require and disabled")
		return false
	case policy != nil && policy.Require != "":
		r.JWTProvider = policy.Require
	case policy != nil && policy.Disabled:
		r.JWTProvider = ""
	default:
		r.JWTProvider = defaultJWTProvider(root)
	}
	return true
}

// defaultJWTProvider is the name of the root's default provider, "" if it
// has none. Routes are only computed once the providers passed validation,
// so there is at most one.
func defaultJWTProvider(root *contourv1.HTTPProxy) string {
	for _, jp := range root.Spec.VirtualHost.JWTProviders {
		if jp.Default {
			return jp.Name
		}
	}
	return ""
}

// checkRouteJWTProviders reports the first route requiring a provider the
// secure virtual host does not define. Contour checks this after adding the
// routes, so they stay programmed and only the status says so.
func checkRouteJWTProviders(st *status.Proxy, svh *dag.SecureVirtualHost, routes []*dag.Route) {
	for _, r := range routes {
		if r.JWTProvider == "" {
			continue
		}
		if !slices.ContainsFunc(svh.JWTProviders, func(jp *dag.JWTProvider) bool { return jp.Name == r.JWTProvider }) {
			st.AddError("JWTVerificationError", "JWTProviderNotDefined", "Route references an undefined JWT provider %q", r.JWTProvider)
			return
		}
	}
}
