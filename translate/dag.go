package translate

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/types"

	"github.com/contourc/contourc/internal/par"
	"github.com/contourc/contourc/translate/dag"
)

// The DAG is the protocol-neutral middle of the pipeline: processors (one
// per input API) add virtual hosts, routes, clusters and secrets to it, and
// the xDS builders only ever read it. Its shape follows Contour's
// internal/dag: Listener -> VirtualHost -> Route -> Cluster -> Service.

// DAG holds the listeners that processors populate.
type DAG struct {
	// listeners by name, e.g. "ingress_http" and "ingress_https".
	listeners map[string]*Listener
	// dynamicListeners is true when the listeners come from a Gateway;
	// then a listener without virtual hosts has no route configuration.
	dynamicListeners bool
	// extensions are the valid ExtensionServices' clusters.
	extensions map[types.NamespacedName]*ExtensionCluster

	// frozen says the DAG is complete (see freeze); referenced is then
	// referencedClusters' answer.
	frozen     bool
	referenced []*Cluster
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

	vhosts  map[string]*VirtualHost
	svhosts map[string]*SecureVirtualHost
	// frozen says the DAG is frozen: valid and validSecure are then
	// virtualHosts' and secureVirtualHosts' answers, which the resource
	// builders ask for again and again.
	frozen      bool
	valid       []*VirtualHost
	validSecure []*SecureVirtualHost
}

// VirtualHost is a set of routes for one host name.
type VirtualHost struct {
	Name      string // the fqdn, or "*"
	CORS      *dag.CORSPolicy
	RateLimit *dag.RateLimitPolicy
	IPFilter  *dag.IPFilter
	// routes keyed by their match conditions: a later route with the same
	// conditions replaces the earlier one, as in Contour.
	routes map[string]*Route
	// sorted caches Routes(): listeners, route tables and cluster lists
	// all ask for it. addRoute clears it.
	sorted []*Route
	// uses caches clusterUses, as sorted caches ordered, and named
	// firstNamed; addRoute clears them too.
	uses, named []*Cluster
	// routesShared says another VirtualHost holds the same routes map (a
	// copy, httpproxy_memo.go): addRoute clones it before adding.
	routesShared bool
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
	// JWTProviders verify JWTs with jwt_authn (jwt.go).
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
	Forward *dag.ForwardClientCert
}

// TCPProxy forwards connections to weighted clusters.
type TCPProxy struct {
	Clusters []*Cluster
}

// Route is one match and what to do with a request that matches it.
type Route struct {
	PathMatch    dag.PathMatch
	HeaderMatch  []dag.HeaderMatch
	QueryMatch   []dag.QueryMatch
	Clusters     []*Cluster
	HTTPSUpgrade bool // plain-HTTP requests are redirected to HTTPS
	Websocket    bool
	Timeout      dag.RouteTimeout
	Retry        *dag.RetryPolicy
	// DirectResponse answers the request without an upstream.
	DirectResponse *dag.DirectResponse
	// Redirect answers with a redirect.
	Redirect *dag.Redirect
	// RequestHashPolicies choose an upstream by hashing the request
	// (Cookie and RequestHash load-balancer strategies).
	RequestHashPolicies []dag.RequestHashPolicy
	RequestHeaders      *dag.HeadersPolicy
	ResponseHeaders     *dag.HeadersPolicy
	PathRewrite         *dag.PathRewrite
	InternalRedirect    *dag.InternalRedirectPolicy
	Mirrors             []*MirrorPolicy
	CookieRewrites      []dag.CookieRewrite
	RateLimit           *dag.RateLimitPolicy
	// IgnoreVirtualHostRateLimits opts the route out of its virtual host's
	// global rate limits.
	IgnoreVirtualHostRateLimits bool
	IPFilter                    *dag.IPFilter
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
	Upstream *dag.Service
	Protocol string // "", "h2", "h2c" or "tls"
	SNI      string
	Weight   uint32
	// LoadBalancerPolicy as Contour names it ("" is round robin).
	LoadBalancerPolicy string
	RequestHeaders     *dag.HeadersPolicy
	ResponseHeaders    *dag.HeadersPolicy
	HealthCheck        *dag.HTTPHealthCheck
	TCPHealthCheck     *dag.TCPHealthCheck
	SlowStart          *dag.SlowStart
	// IdleConnectionTimeout closes idle upstream connections.
	IdleConnectionTimeout dag.Timeout
	Validation            *dag.UpstreamValidation
	CookieRewrites        []dag.CookieRewrite
	// OmitTLSParams leaves upstream TLS versions and ciphers to Envoy, as
	// Contour does for Gateway API backends without a BackendTLSPolicy.
	OmitTLSParams bool
	// DNSLookupFamily is the configuration's cluster.dns-lookup-family,
	// which Contour sets on HTTPProxy clusters only.
	DNSLookupFamily string
	// ClientCertificate is the configuration's Envoy client certificate,
	// presented to TLS upstreams (HTTPProxy and Ingress clusters).
	ClientCertificate *Secret
	// httpProxyTCP marks an HTTPProxy tcpproxy cluster, which Contour
	// gives no per-connection request or buffer limits.
	httpProxyTCP bool
	// name caches clusterName once the DAG is frozen; naming is claimed
	// by the goroutine of freeze that names it (see nameOnce).
	name   string
	naming uint32 // set atomically; the Memo copies clusters once frozen
}

// nameOnce names c, unless it was claimed already: by another goroutine
// of freeze (the virtual hosts of a secure HTTPProxy share their
// clusters), or by an earlier freeze (a replayed virtual host's).
func (c *Cluster) nameOnce() {
	if atomic.CompareAndSwapUint32(&c.naming, 0, 1) {
		c.name = clusterName(c)
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
	// out by freeze for the serving certificates (see secretName).
	name string
}

func newDAG() *DAG { return &DAG{listeners: map[string]*Listener{}} }

func (d *DAG) addListener(l *Listener) *Listener {
	l.vhosts = map[string]*VirtualHost{}
	l.svhosts = map[string]*SecureVirtualHost{}
	d.listeners[l.Name] = l
	return l
}

// sizeFor gives the new listener l's maps room for about hosts virtual
// hosts of each kind.
func (l *Listener) sizeFor(hosts int) {
	l.vhosts = make(map[string]*VirtualHost, hosts)
	l.svhosts = make(map[string]*SecureVirtualHost, hosts)
}

// sortedExtensions returns the extension clusters ordered by name.
func (d *DAG) sortedExtensions() []*ExtensionCluster {
	out := make([]*ExtensionCluster, 0, len(d.extensions))
	for _, e := range d.extensions {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].clusterName() < out[j].clusterName() })
	return out
}

// listener returns the only listener of the given protocol, or nil.
func (d *DAG) listener(protocol string) *Listener {
	var found *Listener
	for _, l := range d.listeners {
		if l.Protocol == protocol {
			if found != nil {
				return nil
			}
			found = l
		}
	}
	return found
}

// sortedListeners returns the listeners ordered by name.
func (d *DAG) sortedListeners() []*Listener {
	out := make([]*Listener, 0, len(d.listeners))
	for _, l := range d.listeners {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (l *Listener) ensureVirtualHost(host string) *VirtualHost {
	vh, ok := l.vhosts[host]
	if !ok {
		if l.vhosts == nil {
			l.vhosts = map[string]*VirtualHost{}
		}
		vh = &VirtualHost{Name: host, routes: map[string]*Route{}}
		l.vhosts[host] = vh
	}
	return vh
}

func (l *Listener) ensureSecureVirtualHost(host string) *SecureVirtualHost {
	svh, ok := l.svhosts[host]
	if !ok {
		if l.svhosts == nil {
			l.svhosts = map[string]*SecureVirtualHost{}
		}
		svh = &SecureVirtualHost{VirtualHost: VirtualHost{Name: host, routes: map[string]*Route{}}}
		l.svhosts[host] = svh
	}
	return svh
}

// virtualHosts returns the valid plain virtual hosts ordered by name: a
// virtual host without routes is dropped, as Contour does. Once the DAG is
// frozen the slice is shared: callers must not change it.
func (l *Listener) virtualHosts() []*VirtualHost {
	if l.frozen {
		return l.valid
	}
	return sortedByKey(l.vhosts, func(vh *VirtualHost) bool { return len(vh.routes) > 0 })
}

// secureVirtualHosts returns the valid secure virtual hosts ordered by
// name: they need a secret and at least one route, or a TCP proxy. Once the
// DAG is frozen the slice is shared: callers must not change it.
func (l *Listener) secureVirtualHosts() []*SecureVirtualHost {
	if l.frozen {
		return l.validSecure
	}
	return sortedByKey(l.svhosts, func(svh *SecureVirtualHost) bool {
		return (svh.Secret != nil && len(svh.routes) > 0) || svh.TCPProxy != nil
	})
}

// sortedByKey returns the values of m that keep holds for, ordered by
// their keys. The keys are sorted alongside their values, not read through
// them: for virtual hosts, keyed by name, following each pointer at each
// comparison was two thirds of freezing a DAG of 5,000.
func sortedByKey[V any](m map[string]V, keep func(V) bool) []V {
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

// addRoute adds r, replacing a route with the same match conditions.
func (vh *VirtualHost) addRoute(r *Route) { vh.addKeyedRoute(conditionsKey(r), r) }

// addKeyedRoute is addRoute for a route whose conditionsKey is key.
func (vh *VirtualHost) addKeyedRoute(key string, r *Route) {
	if vh.routesShared {
		vh.routes, vh.routesShared = maps.Clone(vh.routes), false
	}
	vh.routes[key] = r
	vh.sorted, vh.uses, vh.named = nil, nil, nil
}

// conflicts says whether a route of kind already has the match conditions
// whose conditionsKey is key (Gateway API rules must not override each
// other).
func (vh *VirtualHost) conflicts(key, kind string) bool {
	existing, ok := vh.routes[key]
	return ok && existing.Kind == kind
}

// freeze marks the DAG complete and works out, once, what the resource
// builders ask for again and again: each virtual host's route order, each
// cluster's name and the clusters in use. The builders, which run side by
// side, then only read the DAG.
func (d *DAG) freeze() {
	// Each virtual host's routes are sorted, and each cluster named, on
	// its own, on every CPU: one owner per virtual host and per cluster.
	var vhosts []*VirtualHost
	for _, l := range d.listeners {
		for _, vh := range l.vhosts {
			vhosts = append(vhosts, vh)
		}
		for _, svh := range l.svhosts {
			vhosts = append(vhosts, &svh.VirtualHost)
		}
	}
	// The clusters in use are named on every CPU, each by the first
	// goroutine to claim it: a pass over the 50,000 uses through a map
	// by pointer, to name each once, was 10 ms on one CPU at 5,000
	// HTTPProxies. Those of a replayed virtual host are named already.
	par.ForEach(len(vhosts), func(i int) {
		uses := vhosts[i].clusterUses()
		if vhosts[i].named == nil {
			for _, c := range uses {
				c.nameOnce()
			}
		}
	})
	// Each listener's lists of valid virtual hosts sorted side by side:
	// sorting 5,000 names twice, one after the other, was half of freezing
	// at every reload of serve.
	var sorting sync.WaitGroup
	for _, l := range d.listeners {
		sorting.Go(func() { l.valid = l.virtualHosts() })
		sorting.Go(func() { l.validSecure = l.secureVirtualHosts() })
	}
	sorting.Wait()
	for _, l := range d.listeners {
		l.frozen = true
	}
	visitClusters(d, func(*VirtualHost) {}, (*Cluster).nameOnce)
	par.ForEach(len(vhosts), func(i int) { vhosts[i].firstNamed() })
	nameServingSecrets(d)
	// In the order of their first use, as referencedClusters takes them:
	// the first use of each name is among the firsts of the virtual
	// hosts, a tenth of all uses at 5,000 HTTPProxies.
	var firsts []*Cluster
	visitClusters(d, func(vh *VirtualHost) { firsts = append(firsts, vh.firstNamed()...) },
		func(c *Cluster) { firsts = append(firsts, c) })
	d.referenced = firstByName(firsts)
	d.frozen = true
}

// firstNamed returns the first of the clusters the virtual host uses with
// each name, in use order, worked out once (as clusterUses is): the
// clusters must be named.
func (vh *VirtualHost) firstNamed() []*Cluster {
	if vh.named == nil {
		named := []*Cluster{}
		for _, c := range vh.clusterUses() {
			name := clusterName(c)
			if !slices.ContainsFunc(named, func(n *Cluster) bool { return n.name == name }) {
				named = append(named, c)
			}
		}
		vh.named = named
	}
	return vh.named
}

// nameServingSecrets works out, once, the Envoy names of the secure
// virtual hosts' certificates, which the filter chains and the secrets
// both ask for: each is a hash of the certificate, 10,000 of them a reload
// at 5,000 HTTPProxies, and a replayed virtual host keeps its Secret, name
// and all.
func nameServingSecrets(d *DAG) {
	var unnamed []*Secret
	seen := map[*Secret]bool{}
	for _, l := range d.sortedListeners() {
		for _, svh := range l.secureVirtualHosts() {
			for _, s := range []*Secret{svh.Secret, svh.FallbackCertificate} {
				if s != nil && s.name == "" && !seen[s] {
					seen[s] = true
					unnamed = append(unnamed, s)
				}
			}
		}
	}
	par.ForEach(len(unnamed), func(i int) { unnamed[i].name = secretName(unnamed[i]) })
}

// clusterUses returns the clusters the virtual host's routes use, mirrors
// included, in route order, each once, worked out once (with ordered): the
// walk over every route for the clusters in use was most of freezing a
// DAG whose virtual hosts were replayed.
func (vh *VirtualHost) clusterUses() []*Cluster {
	if vh.uses == nil {
		uses := []*Cluster{}
		add := func(c *Cluster) {
			if !slices.Contains(uses, c) {
				uses = append(uses, c)
			}
		}
		for _, r := range vh.ordered() {
			routeClusters(r, add)
		}
		vh.uses = uses
	}
	return vh.uses
}

// ordered returns the virtual host's routes in Envoy's match order,
// worked out once: callers only read the slice.
func (vh *VirtualHost) ordered() []*Route {
	if vh.sorted == nil {
		// The routes are keyed by their conditionsKey, which the sort
		// needs: building each again was 4% of translating 5,000 HTTPProxies.
		keyed := make([]keyedRoute, 0, len(vh.routes))
		for key, r := range vh.routes {
			keyed = append(keyed, keyedRoute{key, r})
		}
		sortKeyedRoutes(keyed)
		vh.sorted = make([]*Route, len(keyed))
		for i, k := range keyed {
			vh.sorted[i] = k.route
		}
	}
	return vh.sorted
}
