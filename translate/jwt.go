package translate

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"slices"
	"strconv"
	"time"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/dag"
)

// JWT verification of HTTPProxy virtual hosts: spec.virtualhost.jwtProviders
// and routes[].jwtVerificationPolicy, as Contour's HTTPProxy processor
// validates them. The Contour API module contourc builds against (v1.33)
// has only remote JWKS sources; a provider's localJWKS, which arrived
// later, comes from the loader's extensions.

// JWTProvider verifies JWTs on a secure virtual host's requests. Exactly
// one of RemoteJWKS and LocalJWKS is set.
type JWTProvider struct {
	Name       string
	Issuer     string
	Audiences  []string
	ForwardJWT bool
	RemoteJWKS *RemoteJWKS
	// LocalJWKS is the JWKS document inlined from a Secret.
	LocalJWKS []byte
}

// RemoteJWKS is a JWKS fetched over HTTP(S) from a DNS-named upstream.
type RemoteJWKS struct {
	URI     string
	Timeout time.Duration
	// CacheDuration is nil for Envoy's default (5m).
	CacheDuration *time.Duration
	Cluster       *DNSNameCluster
}

// DNSNameCluster is an upstream Envoy finds by resolving a host name.
type DNSNameCluster struct {
	Address string // the host name
	Scheme  string // "http" or "https"
	Port    int
	// DNSLookupFamily is auto, v4, v6 or all.
	DNSLookupFamily string
	// Validation, when set, verifies the upstream's certificate (https).
	Validation *dag.UpstreamValidation
}

// clusterName is Contour v1.33.8's DNSNameClusterName:
// "dnsname/<scheme>/<host>/<port>/<hash>", the hash the first 10 bytes of
// the SHA-256 of every setting that makes the cluster what it is, each
// value quoted so that their boundaries stay apart ("tenant-a"+"idp-ca"
// is not "tenant-ai"+"dp-ca"). Clusters of one name are served once, so
// two HTTPProxies in different namespaces asking for one host with
// another port, DNS family, CA or subject names get a cluster each rather
// than the first one's; the hash is long enough that no one can pick
// subject names to take another namespace's cluster over.
func (c *DNSNameCluster) clusterName() string {
	port := strconv.Itoa(c.Port)
	key := strconv.Quote(c.Scheme) + strconv.Quote(c.Address) + strconv.Quote(port) + strconv.Quote(c.DNSLookupFamily)
	if v := c.Validation; v != nil {
		key += strconv.Quote(v.CANamespace) + strconv.Quote(v.CAName)
		for _, sn := range v.SubjectNames {
			key += strconv.Quote(sn)
		}
	}
	sum := sha256.Sum256([]byte(key))
	return "dnsname/" + c.Scheme + "/" + c.Address + "/" + port + "/" + hex.EncodeToString(sum[:10])
}

// defaultJWKSTimeout is how long Envoy waits for a JWKS unless told.
const defaultJWKSTimeout = time.Second

// defaultDNSLookupFamily is Contour's cluster.dns-lookup-family without a
// configuration file.
const defaultDNSLookupFamily = "auto"

// jwtProviders validates a root's JWT providers in Contour's order and adds
// them to its secure virtual host one by one, as Contour does; false means
// an error stops the proxy.
func (p *httpProxyProcessor) jwtProviders(st *proxyStatus, proxy *contourv1.HTTPProxy, svh *SecureVirtualHost) bool {
	var names []string
	hasDefault := false
	ext := p.cache.httpProxyExtensions(proxy)
	for i, jp := range proxy.Spec.VirtualHost.JWTProviders {
		if slices.Contains(names, jp.Name) {
			st.addError("JWTVerificationError", "DuplicateProviderName", "Spec.VirtualHost.JWTProviders is invalid: duplicate name %s", jp.Name)
			return false
		}
		names = append(names, jp.Name)
		if jp.Default {
			if hasDefault {
				st.addError("JWTVerificationError", "MultipleDefaultProvidersSpecified", "Spec.VirtualHost.JWTProviders is invalid: at most one provider can be set as the default")
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
func (p *httpProxyProcessor) jwtProvider(st *proxyStatus, proxy *contourv1.HTTPProxy, jp contourv1.JWTProvider, local *loader.LocalJWKS) (*JWTProvider, bool) {
	out := &JWTProvider{Name: jp.Name, Issuer: jp.Issuer, Audiences: jp.Audiences, ForwardJWT: jp.ForwardJWT}
	hasRemote, hasLocal := jp.RemoteJWKS.URI != "", local != nil && local.SecretName != ""
	switch {
	case hasRemote && hasLocal:
		st.addError("JWTVerificationError", "JWKSSourceConflict", "Spec.VirtualHost.JWTProviders for provider %q is invalid: at most one of remoteJWKS or localJWKS may be set", jp.Name)
		return nil, false
	case !hasRemote && !hasLocal:
		st.addError("JWTVerificationError", "JWKSSourceMissing", "Spec.VirtualHost.JWTProviders for provider %q is invalid: exactly one of remoteJWKS or localJWKS must be set", jp.Name)
		return nil, false
	case hasLocal:
		// The Secret is always the proxy's own namespace's: no delegation.
		jwks, err := p.cache.lookupJWKS(types.NamespacedName{Namespace: proxy.Namespace, Name: local.SecretName}, local.Key)
		if err != nil {
			st.addError("JWTVerificationError", "LocalJWKSInvalid", "Spec.VirtualHost.JWTProviders.LocalJWKS for provider %q is invalid: %s", jp.Name, err)
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
func (p *httpProxyProcessor) remoteJWKS(st *proxyStatus, proxy *contourv1.HTTPProxy, rj contourv1.RemoteJWKS) (*RemoteJWKS, bool) {
	fail := func(reason, format string, args ...any) (*RemoteJWKS, bool) {
		st.addError("JWTVerificationError", reason, format, args...)
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
		validation, err = p.cache.upstreamValidation(uv, proxy.Namespace)
		if e, denied := err.(errDelegationNotPermitted); denied {
			return fail("RemoteJWKSCACertificateNotDelegated", "Spec.VirtualHost.JWTProviders.RemoteJWKS.UpstreamValidation.CACertificate Secret %q is not configured for certificate delegation", e.secret.String())
		} else if err != nil {
			return fail("RemoteJWKSUpstreamValidationInvalid", "Spec.VirtualHost.JWTProviders.RemoteJWKS.UpstreamValidation is invalid: %s", err)
		}
	}
	out := &RemoteJWKS{URI: rj.URI, Timeout: defaultJWKSTimeout}
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
		if p.settings != nil {
			family = p.settings.dnsLookupFamily
		}
	default:
		return fail("RemoteJWKSDNSLookupFamilyInvalid", "Spec.VirtualHost.JWTProviders.RemoteJWKS.DNSLookupFamily has an invalid value %q, must be auto, all, v4 or v6", rj.DNSLookupFamily)
	}
	out.Cluster = &DNSNameCluster{Address: u.Hostname(), Scheme: u.Scheme, Port: port, DNSLookupFamily: family, Validation: validation}
	return out, true
}

// routeJWTProvider sets the provider a route requires: its policy's
// require, none when disabled, else the root's default provider. Asking
// for both is an error that discards the proxy's routes.
func routeJWTProvider(st *proxyStatus, r *Route, root *contourv1.HTTPProxy, route contourv1.Route) bool {
	policy := route.JWTVerificationPolicy
	switch {
	case policy != nil && policy.Require != "" && policy.Disabled:
		st.addError("JWTVerificationError", "InvalidJWTVerificationPolicy", "route's JWT verification policy cannot specify both require and disabled")
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
func checkRouteJWTProviders(st *proxyStatus, svh *SecureVirtualHost, routes []*Route) {
	for _, r := range routes {
		if r.JWTProvider == "" {
			continue
		}
		if !slices.ContainsFunc(svh.JWTProviders, func(jp *JWTProvider) bool { return jp.Name == r.JWTProvider }) {
			st.addError("JWTVerificationError", "JWTProviderNotDefined", "Route references an undefined JWT provider %q", r.JWTProvider)
			return
		}
	}
}

// jwksClusters returns the remote JWKS clusters of the valid secure virtual
// hosts (TCP-proxied ones too, as in Contour), in listener, virtual host and
// provider order, once per cluster name: the first one met wins.
func jwksClusters(d *DAG) []*DNSNameCluster {
	var out []*DNSNameCluster
	seen := map[string]bool{}
	for _, l := range d.sortedListeners() {
		for _, svh := range l.secureVirtualHosts() {
			for _, jp := range svh.JWTProviders {
				if jp.RemoteJWKS == nil || seen[jp.RemoteJWKS.Cluster.clusterName()] {
					continue
				}
				seen[jp.RemoteJWKS.Cluster.clusterName()] = true
				out = append(out, jp.RemoteJWKS.Cluster)
			}
		}
	}
	return out
}
