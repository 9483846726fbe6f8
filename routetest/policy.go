package routetest

import (
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	extauthzv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ext_authz/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
)

// envoyDefaultRouteTimeout applies when a route action sets no timeout.
const envoyDefaultRouteTimeout = 15 * time.Second

// forwarding describes how a forwarded request goes upstream.
func (c *Config) forwarding(d *Decision, q *request, m *routev3.RouteMatch, ra *routev3.RouteAction) *Forwarding {
	f := &Forwarding{UpstreamPath: q.path, Timeout: envoyDefaultRouteTimeout.String()}
	switch {
	case ra.GetPrefixRewrite() != "":
		pr := ra.GetPrefixRewrite()
		f.PrefixRewrite = &pr
		f.UpstreamPath = rewritePrefix(m, q, pr)
	case ra.GetRegexRewrite() != nil:
		rr := ra.GetRegexRewrite()
		f.RegexRewrite = &RegexRewrite{Pattern: rr.GetPattern().GetRegex(), Substitution: rr.GetSubstitution()}
		if p, err := rewriteRegex(rr, q.path); err != nil {
			d.note("%v", err)
		} else {
			f.UpstreamPath = p
		}
	case ra.GetPathRewritePolicy() != nil || ra.GetPathRewrite() != "":
		d.note("the path rewrite of route #%d is not evaluated", d.RouteIndex)
	}
	switch {
	case ra.GetHostRewriteLiteral() != "":
		f.HostRewrite = ra.GetHostRewriteLiteral()
	case ra.GetAutoHostRewrite().GetValue():
		f.HostRewrite = "auto"
	case ra.GetHostRewriteHeader() != "":
		f.HostRewrite = "header:" + ra.GetHostRewriteHeader()
	case ra.GetHostRewritePathRegex() != nil:
		f.HostRewrite = "pathRegex"
	}
	if t := ra.GetTimeout(); t != nil {
		f.Timeout = duration(t)
	}
	if t := ra.GetIdleTimeout(); t != nil {
		f.IdleTimeout = duration(t)
	}
	rp := ra.GetRetryPolicy()
	if rp == nil {
		// A route's own policy replaces its virtual host's.
		rp = d.vhost.GetRetryPolicy()
	}
	if rp != nil {
		r := &Retry{RetryOn: rp.GetRetryOn(), NumRetries: 1, RetriableStatusCodes: rp.GetRetriableStatusCodes()}
		if n := rp.GetNumRetries(); n != nil {
			r.NumRetries = n.GetValue()
		}
		if t := rp.GetPerTryTimeout(); t != nil {
			r.PerTryTimeout = duration(t)
		}
		f.Retry = r
	}
	for _, mp := range ra.GetRequestMirrorPolicies() {
		f.Mirrors = append(f.Mirrors, Mirror{ClusterRef: c.cluster(mp.GetCluster()), Percent: fractionPercent(mp.GetRuntimeFraction())})
	}
	for _, u := range ra.GetUpgradeConfigs() {
		if u.GetEnabled() == nil || u.GetEnabled().GetValue() {
			f.Upgrades = append(f.Upgrades, u.GetUpgradeType())
		}
	}
	return f
}

// duration prints a protobuf duration the way Go parses it back.
func duration(d *durationpb.Duration) string {
	return d.AsDuration().String()
}

// fractionPercent is a runtime fraction's default value in percent; no
// fraction means every request.
func fractionPercent(rf *corev3.RuntimeFractionalPercent) float64 {
	if rf == nil || rf.GetDefaultValue() == nil {
		return 100
	}
	v := rf.GetDefaultValue()
	den := 100.0
	switch v.GetDenominator() {
	case typev3.FractionalPercent_TEN_THOUSAND:
		den = 10000
	case typev3.FractionalPercent_MILLION:
		den = 1000000
	}
	return float64(v.GetNumerator()) * 100 / den
}

// headerChanges collects the header additions and removals of a route,
// its virtual host and its route configuration, most specific first, the
// order in which Envoy applies them by default.
func headerChanges(rc *routev3.RouteConfiguration, vh *routev3.VirtualHost, r *routev3.Route) (req, resp *HeaderChanges) {
	req, resp = &HeaderChanges{}, &HeaderChanges{}
	addHeaderOptions(req, r.GetRequestHeadersToAdd(), r.GetRequestHeadersToRemove(), "route")
	addHeaderOptions(resp, r.GetResponseHeadersToAdd(), r.GetResponseHeadersToRemove(), "route")
	addHeaderOptions(req, vh.GetRequestHeadersToAdd(), vh.GetRequestHeadersToRemove(), "virtualHost")
	addHeaderOptions(resp, vh.GetResponseHeadersToAdd(), vh.GetResponseHeadersToRemove(), "virtualHost")
	addHeaderOptions(req, rc.GetRequestHeadersToAdd(), rc.GetRequestHeadersToRemove(), "routeConfig")
	addHeaderOptions(resp, rc.GetResponseHeadersToAdd(), rc.GetResponseHeadersToRemove(), "routeConfig")
	return req, resp
}

func addHeaderOptions(h *HeaderChanges, add []*corev3.HeaderValueOption, remove []string, from string) {
	for _, o := range add {
		action := o.GetAppendAction().String()
		//nolint:staticcheck // the deprecated append field still decides when set.
		if ap := o.GetAppend(); ap != nil && !ap.GetValue() {
			action = corev3.HeaderValueOption_OVERWRITE_IF_EXISTS_OR_ADD.String()
		}
		h.Set = append(h.Set, HeaderValue{Name: o.GetHeader().GetKey(), Value: o.GetHeader().GetValue(), Append: action, From: from})
	}
	h.Remove = append(h.Remove, remove...)
}

func (d *Decision) requestChanges() *HeaderChanges {
	if d.RequestHeaders == nil {
		d.RequestHeaders = &HeaderChanges{}
	}
	return d.RequestHeaders
}

func (d *Decision) responseChanges() *HeaderChanges {
	if d.ResponseHeaders == nil {
		d.ResponseHeaders = &HeaderChanges{}
	}
	return d.ResponseHeaders
}

// perFilterConfig is a filter's per-route configuration: the route's, else
// its virtual host's (the most specific wins, as in Envoy).
func perFilterConfig(name string, vh *routev3.VirtualHost, r *routev3.Route) (*anypb.Any, string) {
	if a, ok := r.GetTypedPerFilterConfig()[name]; ok {
		return a, "route"
	}
	if a, ok := vh.GetTypedPerFilterConfig()[name]; ok {
		return a, "virtual host"
	}
	return nil, ""
}

// extAuthzState says whether the ext_authz filter checks this request.
func extAuthzState(filter string, vh *routev3.VirtualHost, r *routev3.Route, d *Decision) string {
	a, _ := perFilterConfig(filter, vh, r)
	if a == nil {
		return "enabled"
	}
	per := &extauthzv3.ExtAuthzPerRoute{}
	if err := a.UnmarshalTo(per); err != nil {
		d.note("ext_authz per-route configuration: %v", err)
		return "enabled"
	}
	if per.GetDisabled() {
		return "disabled"
	}
	return "enabled"
}
