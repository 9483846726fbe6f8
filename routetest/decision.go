package routetest

import (
	"fmt"
	"strings"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
)

// Decision is what Envoy would do with one request, and how it got there.
// Its JSON form is what `contourc explain -o json` prints.
type Decision struct {
	// Request is the request evaluated, defaults applied.
	Request     Request `json:"request"`
	Listener    string  `json:"listener,omitempty"`
	FilterChain string  `json:"filterChain,omitempty"`
	RouteConfig string  `json:"routeConfig,omitempty"`
	VirtualHost string  `json:"virtualHost,omitempty"`
	// RouteIndex is the chosen route's index in the virtual host's routes,
	// -1 when no route was chosen.
	RouteIndex int `json:"routeIndex"`
	// Source is the object the chosen route came from.
	Source *Source `json:"source,omitempty"`
	Action Action  `json:"action"`
	// Forwarding is set when the action forwards the request upstream.
	Forwarding      *Forwarding    `json:"forwarding,omitempty"`
	RequestHeaders  *HeaderChanges `json:"requestHeaders,omitempty"`
	ResponseHeaders *HeaderChanges `json:"responseHeaders,omitempty"`
	// ExtAuthz is "enabled" when an external authorization server checks
	// the request first, "disabled" when the route or virtual host turns
	// the connection manager's ext_authz filter off; empty without one.
	ExtAuthz string    `json:"extAuthz,omitempty"`
	IPFilter *IPFilter `json:"ipFilter,omitempty"`
	// Steps are the decisions before route matching (listener, filter
	// chain, route configuration, virtual host), in order.
	Steps []Step `json:"steps"`
	// Routes are the routes tried, in order, the chosen one last.
	Routes []RouteTry `json:"routes,omitempty"`
	// Notes are things contourc could not model exactly.
	Notes []string `json:"notes,omitempty"`

	route *routev3.Route
	vhost *routev3.VirtualHost
}

// Route is the chosen route, nil when none was.
func (d *Decision) Route() *routev3.Route { return d.route }

// Step is one decision before route matching.
type Step struct {
	Stage   string `json:"stage"`
	Message string `json:"message"`
}

func (d *Decision) step(stage, format string, args ...any) {
	d.Steps = append(d.Steps, Step{Stage: stage, Message: fmt.Sprintf(format, args...)})
}

func (d *Decision) note(format string, args ...any) {
	d.Notes = append(d.Notes, fmt.Sprintf(format, args...))
}

// Action is what Envoy does with the request: exactly one field is set.
type Action struct {
	Cluster          *ClusterRef       `json:"cluster,omitempty"`
	WeightedClusters []WeightedCluster `json:"weightedClusters,omitempty"`
	Redirect         *Redirect         `json:"redirect,omitempty"`
	DirectResponse   *DirectResponse   `json:"directResponse,omitempty"`
	// NoMatch: nothing serves the request. Status is 404 when no virtual
	// host or route matches, 0 when the connection is refused or closed
	// (no listener, no filter chain).
	NoMatch *Refusal `json:"noMatch,omitempty"`
	// Denied: a filter answers before routing: 403 from an IP filter, 421
	// from Contour's misdirected-request check (host differs from SNI).
	Denied *Refusal `json:"denied,omitempty"`
	// TCPProxy: the connection is proxied, not parsed as HTTP (TLS
	// passthrough, TLSRoute, TCPRoute).
	TCPProxy *TCPProxy `json:"tcpProxy,omitempty"`
	// Unsupported names a route action contourc does not evaluate.
	Unsupported string `json:"unsupported,omitempty"`
}

// Kind is the name of the field that is set.
func (a Action) Kind() string {
	switch {
	case a.Cluster != nil:
		return "cluster"
	case a.WeightedClusters != nil:
		return "weightedClusters"
	case a.Redirect != nil:
		return "redirect"
	case a.DirectResponse != nil:
		return "directResponse"
	case a.NoMatch != nil:
		return "noMatch"
	case a.Denied != nil:
		return "denied"
	case a.TCPProxy != nil:
		return "tcpProxy"
	case a.Unsupported != "":
		return "unsupported"
	}
	return "none"
}

func (a Action) String() string {
	switch {
	case a.Cluster != nil:
		return "forward to cluster " + a.Cluster.String()
	case a.WeightedClusters != nil:
		return "split between clusters " + weightedString(a.WeightedClusters)
	case a.Redirect != nil:
		return fmt.Sprintf("redirect %d to %s", a.Redirect.Status, a.Redirect.Location)
	case a.DirectResponse != nil:
		s := fmt.Sprintf("respond %d", a.DirectResponse.Status)
		if a.DirectResponse.Body != "" {
			s += fmt.Sprintf(" with body %q", a.DirectResponse.Body)
		}
		return s
	case a.NoMatch != nil:
		if a.NoMatch.Status != 0 {
			return fmt.Sprintf("no match: %d (%s)", a.NoMatch.Status, a.NoMatch.Reason)
		}
		return "no match: " + a.NoMatch.Reason
	case a.Denied != nil:
		return fmt.Sprintf("denied: %d (%s)", a.Denied.Status, a.Denied.Reason)
	case a.TCPProxy != nil:
		if a.TCPProxy.Cluster != nil {
			return "TCP proxy to cluster " + a.TCPProxy.Cluster.String()
		}
		return "TCP proxy split between clusters " + weightedString(a.TCPProxy.WeightedClusters)
	case a.Unsupported != "":
		return "unsupported action " + a.Unsupported
	}
	return "none"
}

func weightedString(ws []WeightedCluster) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = fmt.Sprintf("%s %s%%", w.ClusterRef, formatPercent(w.Percent))
	}
	return strings.Join(parts, ", ")
}

// formatPercent prints a share without trailing zeros: 50, 33.33.
func formatPercent(p float64) string {
	s := fmt.Sprintf("%.2f", p)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// WeightedCluster is one cluster of a split and its share of requests.
type WeightedCluster struct {
	ClusterRef
	Weight  uint32  `json:"weight"`
	Percent float64 `json:"percent"`
}

// Redirect is a redirect response.
type Redirect struct {
	Status   int    `json:"status"`
	Location string `json:"location"`
}

// DirectResponse is a response Envoy makes up itself.
type DirectResponse struct {
	Status int    `json:"status"`
	Body   string `json:"body,omitempty"`
}

// Refusal is a request not served, and why.
type Refusal struct {
	Status int    `json:"status,omitempty"`
	Reason string `json:"reason"`
}

// TCPProxy is a filter chain that proxies connections.
type TCPProxy struct {
	Cluster          *ClusterRef       `json:"cluster,omitempty"`
	WeightedClusters []WeightedCluster `json:"weightedClusters,omitempty"`
}

// Forwarding is how a forwarded request is sent upstream.
type Forwarding struct {
	// UpstreamPath is :path as the upstream receives it, rewrites applied.
	UpstreamPath  string        `json:"upstreamPath"`
	PrefixRewrite *string       `json:"prefixRewrite,omitempty"`
	RegexRewrite  *RegexRewrite `json:"regexRewrite,omitempty"`
	// HostRewrite is the Host the upstream receives when rewritten: the
	// literal host, "auto" (the endpoint's host name) or "header:<name>".
	HostRewrite string `json:"hostRewrite,omitempty"`
	// Timeout is the route timeout ("0s": none); Envoy's default is 15s.
	Timeout     string   `json:"timeout"`
	IdleTimeout string   `json:"idleTimeout,omitempty"`
	Retry       *Retry   `json:"retry,omitempty"`
	Mirrors     []Mirror `json:"mirrors,omitempty"`
	// Upgrades are the protocol upgrades (websocket) the route allows.
	Upgrades []string `json:"upgrades,omitempty"`
}

// RegexRewrite is a regex_rewrite of the path.
type RegexRewrite struct {
	Pattern      string `json:"pattern"`
	Substitution string `json:"substitution"`
}

// Retry is a route's (or its virtual host's) retry policy.
type Retry struct {
	RetryOn              string   `json:"retryOn,omitempty"`
	NumRetries           uint32   `json:"numRetries"`
	PerTryTimeout        string   `json:"perTryTimeout,omitempty"`
	RetriableStatusCodes []uint32 `json:"retriableStatusCodes,omitempty"`
}

// Mirror is a shadow copy of requests sent to another cluster.
type Mirror struct {
	ClusterRef
	Percent float64 `json:"percent"`
}

// HeaderChanges are the headers added and removed on the way, from the
// route, its virtual host and the route configuration.
type HeaderChanges struct {
	Set    []HeaderValue `json:"set,omitempty"`
	Remove []string      `json:"remove,omitempty"`
}

// HeaderValue is a header added or replaced.
type HeaderValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	// Append is Envoy's append_action: APPEND_IF_EXISTS_OR_ADD,
	// ADD_IF_ABSENT, OVERWRITE_IF_EXISTS_OR_ADD or OVERWRITE_IF_EXISTS.
	Append string `json:"append,omitempty"`
	// From is where it is configured: route, virtualHost, routeConfig or
	// weightedCluster.
	From string `json:"from"`
}

// IPFilter is the RBAC (IP allow/deny) filter that applies to the route.
type IPFilter struct {
	// Action is "allow" (only the listed addresses) or "deny".
	Action string   `json:"action"`
	CIDRs  []string `json:"cidrs"`
	// Verdict is "allowed", "denied", or "unknown" when the request has no
	// sourceAddress.
	Verdict string `json:"verdict"`
}
