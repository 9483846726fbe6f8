package routetest

import (
	"fmt"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	tcpproxyv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"
)

// routeAction fills in what the chosen route does.
func (c *Config) routeAction(d *Decision, q *request, r *routev3.Route) {
	switch a := r.GetAction().(type) {
	case *routev3.Route_Route:
		c.forward(d, q, r, a.Route)
	case *routev3.Route_Redirect:
		d.Action.Redirect = redirect(a.Redirect, r.GetMatch(), q)
	case *routev3.Route_DirectResponse:
		dr := &DirectResponse{Status: int(a.DirectResponse.GetStatus())}
		body := a.DirectResponse.GetBody()
		switch {
		case body.GetInlineString() != "":
			dr.Body = body.GetInlineString()
		case len(body.GetInlineBytes()) > 0:
			dr.Body = string(body.GetInlineBytes())
		case body != nil && body.GetSpecifier() != nil:
			d.note("direct response body from %T is not read", body.GetSpecifier())
		}
		d.Action.DirectResponse = dr
	default:
		d.Action.Unsupported = fmt.Sprintf("%T", r.GetAction())
	}
}

// forward fills in a route action that sends the request upstream.
func (c *Config) forward(d *Decision, q *request, r *routev3.Route, ra *routev3.RouteAction) {
	switch spec := ra.GetClusterSpecifier().(type) {
	case *routev3.RouteAction_Cluster:
		ref := c.cluster(spec.Cluster)
		d.Action.Cluster = &ref
	case *routev3.RouteAction_WeightedClusters:
		d.Action.WeightedClusters = c.weighted(spec.WeightedClusters)
		for _, wc := range spec.WeightedClusters.GetClusters() {
			// Per-cluster header changes apply only to that cluster's
			// share; they are listed with where they come from.
			addHeaderOptions(d.requestChanges(), wc.GetRequestHeadersToAdd(), wc.GetRequestHeadersToRemove(), "weightedCluster "+wc.GetName())
			addHeaderOptions(d.responseChanges(), wc.GetResponseHeadersToAdd(), wc.GetResponseHeadersToRemove(), "weightedCluster "+wc.GetName())
		}
	default:
		d.Action.Unsupported = fmt.Sprintf("%T", ra.GetClusterSpecifier())
		return
	}
	d.Forwarding = c.forwarding(d, q, r.GetMatch(), ra)
}

// weighted reports a weighted_clusters split as each cluster's share, not
// as a pick: every request is a draw, the test is on the distribution.
// The share is out of total_weight when that (deprecated) field is set,
// else out of the sum of the weights.
func (c *Config) weighted(wc *routev3.WeightedCluster) []WeightedCluster {
	total := uint32(0)
	for _, cl := range wc.GetClusters() {
		total += cl.GetWeight().GetValue()
	}
	//nolint:staticcheck // total_weight is deprecated but still honoured by Envoy.
	if tw := wc.GetTotalWeight(); tw != nil && tw.GetValue() > 0 {
		total = tw.GetValue()
	}
	out := make([]WeightedCluster, 0, len(wc.GetClusters()))
	for _, cl := range wc.GetClusters() {
		w := cl.GetWeight().GetValue()
		pct := 0.0
		if total > 0 {
			pct = float64(w) * 100 / float64(total)
		}
		out = append(out, WeightedCluster{ClusterRef: c.cluster(cl.GetName()), Weight: w, Percent: pct})
	}
	return out
}

// tcpProxy describes a TCP proxy's upstream.
func (c *Config) tcpProxy(t *tcpproxyv3.TcpProxy) *TCPProxy {
	if name := t.GetCluster(); name != "" {
		ref := c.cluster(name)
		return &TCPProxy{Cluster: &ref}
	}
	total := uint32(0)
	for _, cl := range t.GetWeightedClusters().GetClusters() {
		total += cl.GetWeight()
	}
	out := &TCPProxy{WeightedClusters: []WeightedCluster{}}
	for _, cl := range t.GetWeightedClusters().GetClusters() {
		pct := 0.0
		if total > 0 {
			pct = float64(cl.GetWeight()) * 100 / float64(total)
		}
		out.WeightedClusters = append(out.WeightedClusters, WeightedCluster{ClusterRef: c.cluster(cl.GetName()), Weight: cl.GetWeight(), Percent: pct})
	}
	return out
}
