package dag

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/types"

	"github.com/contourc/contourc/internal/par"
)

// The DAG is the protocol-neutral middle of the pipeline: processors (one
// per input API) add virtual hosts, routes, clusters and secrets to it, and
// the xDS builders only ever read it. Its shape follows Contour's
// internal/dag: Listener -> VirtualHost -> Route -> Cluster -> Service.

// DAG holds the listeners that processors populate.
type DAG struct {
	// Listeners by name, e.g. "ingress_http" and "ingress_https".
	Listeners map[string]*Listener
	// DynamicListeners is true when the listeners come from a Gateway;
	// then a listener without virtual hosts has no route configuration.
	DynamicListeners bool
	// Extensions are the valid ExtensionServices' clusters.
	Extensions map[types.NamespacedName]*ExtensionCluster

	// Frozen says the DAG is complete (see Freeze); Referenced is then
	// referencedClusters' answer.
	Frozen     bool
	Referenced []*Cluster
}

// Listener is an Envoy listener in the making.
type Listener struct {
	Name     string
	Protocol string // "http" or "https"
	Address  string
	Port     uint32
	// RouteConfigName is the RDS name of a plain-HTTP listener's route
	// configuration, and for an HTTPS listener the prefix of its secure
	// ones ("https" -> "https/<fqdn>").
	RouteConfigName string
	// EnableWebsockets allows websocket upgrades on every route (Gateway
	// API listeners).
	EnableWebsockets bool
	// TCPProxy, on a TCP listener, forwards every connection (TCPRoute).
	TCPProxy *TCPProxy

	VHosts       map[string]*VirtualHost
	SecureVHosts map[string]*SecureVirtualHost
	// frozen says the DAG is frozen: valid and validSecure are then
	// VirtualHosts' and SecureVirtualHosts' answers, which the resource
	// builders ask for again and again.
	frozen      bool
	valid       []*VirtualHost
	validSecure []*SecureVirtualHost
}

// VirtualHost is a set of routes for one host name.
type VirtualHost struct {
	Name      string // the fqdn, or "*"
	CORS      *CORSPolicy
	RateLimit *RateLimitPolicy
	IPFilter  *IPFilter
	// Routes keyed by their match conditions: a later route with the same
	// conditions replaces the earlier one, as in Contour.
	Routes map[string]*Route
	// Sorted caches Routes(): listeners, route tables and cluster lists
	// all ask for it. AddRoute clears it.
	Sorted []*Route
	// Uses caches ClusterUses, as sorted caches ordered, and named
	// FirstNamed; AddRoute clears them too.
	Uses, Named []*Cluster
	// RoutesShared says another VirtualHost holds the same routes map (a
	// copy, translate/httpproxy's memo.go): AddRoute clones it
	// before adding.
	RoutesShared bool
}

// SecureVirtualHost is a VirtualHost served over TLS on the HTTPS listener.
type SecureVirtualHost struct {
	VirtualHost
	// Secret is nil for TLS passthrough.
	Secret        *Secret
	MinTLSVersion string // "1.2" or "1.3"
	MaxTLSVersion string
	// ClientValidation verifies client certificates.
	ClientValidation *ClientValidation
	// Authorization, when set, checks every request with ext_authz.
	Authorization *ExternalAuthorization
	// JWTProviders verify JWTs with jwt_authn (translate/httpproxy's
	// jwt.go).
	JWTProviders []*JWTProvider
	// TCPProxy, when set, proxies the TLS connection's bytes instead of
	// serving HTTP.
	TCPProxy *TCPProxy
	// FallbackCertificate, when set, also serves the virtual host to
	// clients without SNI (the configuration's tls.fallback-certificate).
	FallbackCertificate *Secret
}

// ClientValidation is how a secure virtual host checks client certificates.
type ClientValidation struct {
	CACert, CRL           []byte
	SkipValidation        bool
	OnlyVerifyLeafCertCRL bool
	Optional              bool
	// Forward, when set, passes client certificate details upstream in the
	// x-forwarded-client-cert header.
	Forward *ForwardClientCert
}

// TCPProxy forwards connections to weighted clusters.
type TCPProxy struct {
	Clusters []*Cluster
}

// Route is one match and what to do with a request that matches it.
type Route struct {
	PathMatch    PathMatch
	HeaderMatch  []HeaderMatch
	QueryMatch   []QueryMatch
	Clusters     []*Cluster
	HTTPSUpgrade bool // plain-HTTP requests are redirected to HTTPS
	Websocket    bool
	Timeout      RouteTimeout
	Retry        *RetryPolicy
	// DirectResponse answers the request without an upstream.
	DirectResponse *DirectResponse
	// Redirect answers with a redirect.
	Redirect *Redirect
	// RequestHashPolicies choose an upstream by hashing the request
	// (Cookie and RequestHash load-balancer strategies).
	RequestHashPolicies []RequestHashPolicy
	RequestHeaders      *HeadersPolicy
	ResponseHeaders     *HeadersPolicy
	PathRewrite         *PathRewrite
	InternalRedirect    *InternalRedirectPolicy
	Mirrors             []*MirrorPolicy
	CookieRewrites      []CookieRewrite
	RateLimit           *RateLimitPolicy
	// IgnoreVirtualHostRateLimits opts the route out of its virtual host's
	// global rate limits.
	IgnoreVirtualHostRateLimits bool
	IPFilter                    *IPFilter
	// AuthDisabled and AuthContext override the virtual host's external
	// authorization for this route.
	AuthDisabled bool
	AuthContext  map[string]string
	// JWTProvider names the provider whose JWTs the route requires.
	JWTProvider string
	// Priority orders otherwise equal routes (Gateway API rule index).
	Priority int

	// Source metadata (`contour serve` sets it on every route).
	Kind, Namespace, Name string
}

// Cluster is an upstream a route sends traffic to.
type Cluster struct {
	Upstream *Service
	Protocol string // "", "h2", "h2c" or "tls"
	SNI      string
	Weight   uint32
	// LoadBalancerPolicy as Contour names it ("" is round robin).
	LoadBalancerPolicy string
	RequestHeaders     *HeadersPolicy
	ResponseHeaders    *HeadersPolicy
	HealthCheck        *HTTPHealthCheck
	TCPHealthCheck     *TCPHealthCheck
	SlowStart          *SlowStart
	// IdleConnectionTimeout closes idle upstream connections.
	IdleConnectionTimeout Timeout
	Validation            *UpstreamValidation
	CookieRewrites        []CookieRewrite
	// OmitTLSParams leaves upstream TLS versions and ciphers to Envoy, as
	// Contour does for Gateway API backends without a BackendTLSPolicy.
	OmitTLSParams bool
	// DNSLookupFamily is the configuration's cluster.dns-lookup-family,
	// which Contour sets on HTTPProxy clusters only.
	DNSLookupFamily string
	// ClientCertificate is the configuration's Envoy client certificate,
	// presented to TLS upstreams (HTTPProxy and Ingress clusters).
	ClientCertificate *Secret
	// HTTPProxyTCP marks an HTTPProxy tcpproxy cluster, which Contour
	// gives no per-connection request or buffer limits.
	HTTPProxyTCP bool
	// FrozenName caches ClusterName once the DAG is frozen; naming is claimed
	// by the goroutine of Freeze that names it (see nameOnce).
	FrozenName string
	naming     uint32 // set atomically; the Memo copies clusters once frozen
}

// nameOnce names c, unless it was claimed already: by another goroutine
// of Freeze (the virtual hosts of a secure HTTPProxy share their
// clusters), or by an earlier Freeze (a replayed virtual host's).
func (c *Cluster) nameOnce() {
	if atomic.CompareAndSwapUint32(&c.naming, 0, 1) {
		c.FrozenName = ClusterName(c)
	}
}

// MirrorPolicy copies a share of the requests to another cluster.
type MirrorPolicy struct {
	Cluster *Cluster
	Percent uint32
}

// Secret is a validated TLS certificate and key.
type Secret struct {
	Namespace, Name string
	Cert, Key       []byte
	// name is the Envoy resource name, a hash of the certificate, worked
	// out by Freeze for the serving certificates (see SecretName).
	name string
}

func NewDAG() *DAG { return &DAG{Listeners: map[string]*Listener{}} }

func (d *DAG) AddListener(l *Listener) *Listener {
	l.VHosts = map[string]*VirtualHost{}
	l.SecureVHosts = map[string]*SecureVirtualHost{}
	d.Listeners[l.Name] = l
	return l
}

// SizeFor gives the new listener l's maps room for about hosts virtual
// hosts of each kind.
func (l *Listener) SizeFor(hosts int) {
	l.VHosts = make(map[string]*VirtualHost, hosts)
	l.SecureVHosts = make(map[string]*SecureVirtualHost, hosts)
}

// SortedExtensions returns the extension clusters ordered by name.
func (d *DAG) SortedExtensions() []*ExtensionCluster {
	out := make([]*ExtensionCluster, 0, len(d.Extensions))
	for _, e := range d.Extensions {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ClusterName() < out[j].ClusterName() })
	return out
}

// Listener returns the only listener of the given protocol, or nil.
func (d *DAG) Listener(protocol string) *Listener {
	var found *Listener
	for _, l := range d.Listeners {
		if l.Protocol == protocol {
			if found != nil {
				return nil
			}
			found = l
		}
	}
	return found
}

// SortedListeners returns the listeners ordered by name.
func (d *DAG) SortedListeners() []*Listener {
	out := make([]*Listener, 0, len(d.Listeners))
	for _, l := range d.Listeners {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (l *Listener) EnsureVirtualHost(host string) *VirtualHost {
	vh, ok := l.VHosts[host]
	if !ok {
		if l.VHosts == nil {
			l.VHosts = map[string]*VirtualHost{}
		}
		vh = &VirtualHost{Name: host, Routes: map[string]*Route{}}
		l.VHosts[host] = vh
	}
	return vh
}

func (l *Listener) EnsureSecureVirtualHost(host string) *SecureVirtualHost {
	svh, ok := l.SecureVHosts[host]
	if !ok {
		if l.SecureVHosts == nil {
			l.SecureVHosts = map[string]*SecureVirtualHost{}
		}
		svh = &SecureVirtualHost{VirtualHost: VirtualHost{Name: host, Routes: map[string]*Route{}}}
		l.SecureVHosts[host] = svh
	}
	return svh
}

// VirtualHosts returns the valid plain virtual hosts ordered by name: a
// virtual host without routes is dropped, as Contour does. Once the DAG is
// frozen the slice is shared: callers must not change it.
func (l *Listener) VirtualHosts() []*VirtualHost {
	if l.frozen {
		return l.valid
	}
	return SortedByKey(l.VHosts, func(vh *VirtualHost) bool { return len(vh.Routes) > 0 })
}

// SecureVirtualHosts returns the valid secure virtual hosts ordered by
// name: they need a secret and at least one route, or a TCP proxy. Once the
// DAG is frozen the slice is shared: callers must not change it.
func (l *Listener) SecureVirtualHosts() []*SecureVirtualHost {
	if l.frozen {
		return l.validSecure
	}
	return SortedByKey(l.SecureVHosts, func(svh *SecureVirtualHost) bool {
		return (svh.Secret != nil && len(svh.Routes) > 0) || svh.TCPProxy != nil
	})
}

// SortedByKey returns the values of m that keep holds for, ordered by
// their keys. The keys are sorted alongside their values, not read through
// them: for virtual hosts, keyed by name, following each pointer at each
// comparison was two thirds of freezing a DAG of 5,000.
func SortedByKey[V any](m map[string]V, keep func(V) bool) []V {
	type keyed struct {
		key string
		v   V
	}
	all := make([]keyed, 0, len(m))
	for k, v := range m {
		if keep(v) {
			all = append(all, keyed{k, v})
		}
	}
	slices.SortFunc(all, func(a, b keyed) int { return strings.Compare(a.key, b.key) })
	if len(all) == 0 {
		return nil
	}
	out := make([]V, len(all))
	for i, kv := range all {
		out[i] = kv.v
	}
	return out
}

// AddRoute adds r, replacing a route with the same match conditions.
func (vh *VirtualHost) AddRoute(r *Route) { vh.AddKeyedRoute(ConditionsKey(r), r) }

// AddKeyedRoute is AddRoute for a route whose ConditionsKey is key.
func (vh *VirtualHost) AddKeyedRoute(key string, r *Route) {
	if vh.RoutesShared {
		vh.Routes, vh.RoutesShared = maps.Clone(vh.Routes), false
	}
	vh.Routes[key] = r
	vh.Sorted, vh.Uses, vh.Named = nil, nil, nil
}

// Conflicts says whether a route of kind already has the match conditions
// whose ConditionsKey is key (Gateway API rules must not override each
// other).
func (vh *VirtualHost) Conflicts(key, kind string) bool {
	existing, ok := vh.Routes[key]
	return ok && existing.Kind == kind
}

// Freeze marks the DAG complete and works out, once, what the resource
// builders ask for again and again: each virtual host's route order, each
// cluster's name and the clusters in use. The builders, which run side by
// side, then only read the DAG.
func (d *DAG) Freeze() {
	// Each virtual host's routes are sorted, and each cluster named, on
	// its own, on every CPU: one owner per virtual host and per cluster.
	var vhosts []*VirtualHost
	for _, l := range d.Listeners {
		for _, vh := range l.VHosts {
			vhosts = append(vhosts, vh)
		}
		for _, svh := range l.SecureVHosts {
			vhosts = append(vhosts, &svh.VirtualHost)
		}
	}
	// The clusters in use are named on every CPU, each by the first
	// goroutine to claim it: a pass over the 50,000 uses through a map
	// by pointer, to name each once, was 10 ms on one CPU at 5,000
	// HTTPProxies. Those of a replayed virtual host are named already.
	par.ForEach(len(vhosts), func(i int) {
		uses := vhosts[i].ClusterUses()
		if vhosts[i].Named == nil {
			for _, c := range uses {
				c.nameOnce()
			}
		}
	})
	// Each listener's lists of valid virtual hosts sorted side by side:
	// sorting 5,000 names twice, one after the other, was half of freezing
	// at every reload of serve.
	var sorting sync.WaitGroup
	for _, l := range d.Listeners {
		sorting.Go(func() { l.valid = l.VirtualHosts() })
		sorting.Go(func() { l.validSecure = l.SecureVirtualHosts() })
	}
	sorting.Wait()
	for _, l := range d.Listeners {
		l.frozen = true
	}
	VisitClusters(d, func(*VirtualHost) {}, (*Cluster).nameOnce)
	par.ForEach(len(vhosts), func(i int) { vhosts[i].FirstNamed() })
	nameServingSecrets(d)
	// In the order of their first use, as referencedClusters takes them:
	// the first use of each name is among the firsts of the virtual
	// hosts, a tenth of all uses at 5,000 HTTPProxies.
	var firsts []*Cluster
	VisitClusters(d, func(vh *VirtualHost) { firsts = append(firsts, vh.FirstNamed()...) },
		func(c *Cluster) { firsts = append(firsts, c) })
	d.Referenced = FirstByName(firsts)
	d.Frozen = true
}

// FirstNamed returns the first of the clusters the virtual host uses with
// each name, in use order, worked out once (as ClusterUses is): the
// clusters must be named.
func (vh *VirtualHost) FirstNamed() []*Cluster {
	if vh.Named == nil {
		named := []*Cluster{}
		for _, c := range vh.ClusterUses() {
			name := ClusterName(c)
			if !slices.ContainsFunc(named, func(n *Cluster) bool { return n.FrozenName == name }) {
				named = append(named, c)
			}
		}
		vh.Named = named
	}
	return vh.Named
}

// nameServingSecrets works out, once, the Envoy names of the secure
// virtual hosts' certificates, which the filter chains and the secrets
// both ask for: each is a hash of the certificate, 10,000 of them a reload
// at 5,000 HTTPProxies, and a replayed virtual host keeps its Secret, name
// and all.
func nameServingSecrets(d *DAG) {
	var unnamed []*Secret
	seen := map[*Secret]bool{}
	for _, l := range d.SortedListeners() {
		for _, svh := range l.SecureVirtualHosts() {
			for _, s := range []*Secret{svh.Secret, svh.FallbackCertificate} {
				if s != nil && s.name == "" && !seen[s] {
					seen[s] = true
					unnamed = append(unnamed, s)
				}
			}
		}
	}
	par.ForEach(len(unnamed), func(i int) { unnamed[i].name = SecretName(unnamed[i]) })
}

// ClusterUses returns the clusters the virtual host's routes use, mirrors
// included, in route order, each once, worked out once (with ordered): the
// walk over every route for the clusters in use was most of freezing a
// DAG whose virtual hosts were replayed.
func (vh *VirtualHost) ClusterUses() []*Cluster {
	if vh.Uses == nil {
		uses := []*Cluster{}
		add := func(c *Cluster) {
			if !slices.Contains(uses, c) {
				uses = append(uses, c)
			}
		}
		for _, r := range vh.Ordered() {
			RouteClusters(r, add)
		}
		vh.Uses = uses
	}
	return vh.Uses
}

// Ordered returns the virtual host's routes in Envoy's match order,
// worked out once: callers only read the slice.
func (vh *VirtualHost) Ordered() []*Route {
	if vh.Sorted == nil {
		// The routes are keyed by their ConditionsKey, which the sort
		// needs: building each again was 4% of translating 5,000 HTTPProxies.
		keyed := make([]keyedRoute, 0, len(vh.Routes))
		for key, r := range vh.Routes {
			keyed = append(keyed, keyedRoute{key, r})
		}
		sortKeyedRoutes(keyed)
		vh.Sorted = make([]*Route, len(keyed))
		for i, k := range keyed {
			vh.Sorted[i] = k.route
		}
	}
	return vh.Sorted
}
