package diff

import (
	"fmt"
	"strconv"
	"strings"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"google.golang.org/protobuf/types/known/durationpb"
)

// maxBody is how much of a direct response body an action shows.
const maxBody = 40

// describeAction writes what a route does: the cluster(s) it forwards to
// with their weights, a redirect or a direct response, followed by the
// details that change a request on its way (rewrites, timeouts, retries,
// mirrors, header changes) in parentheses. The field changes of a route
// say exactly what differs; this is the overview.
func describeAction(r *routev3.Route) string {
	var main string
	var details []string
	switch a := r.GetAction().(type) {
	case *routev3.Route_Route:
		main, details = describeRouteAction(a.Route)
	case *routev3.Route_Redirect:
		main = describeRedirect(a.Redirect)
	case *routev3.Route_DirectResponse:
		main = describeDirectResponse(a.DirectResponse)
	case *routev3.Route_NonForwardingAction:
		main = "no forwarding"
	case nil:
		main = "no action"
	default:
		main = formatMessage(r.ProtoReflect())
	}
	details = append(details, describeHeaderChanges("request", r.GetRequestHeadersToAdd(), r.GetRequestHeadersToRemove())...)
	details = append(details, describeHeaderChanges("response", r.GetResponseHeadersToAdd(), r.GetResponseHeadersToRemove())...)
	if len(details) == 0 {
		return main
	}
	return main + " (" + strings.Join(details, ", ") + ")"
}

func describeRouteAction(a *routev3.RouteAction) (string, []string) {
	var main string
	switch c := a.GetClusterSpecifier().(type) {
	case *routev3.RouteAction_Cluster:
		main = c.Cluster
	case *routev3.RouteAction_WeightedClusters:
		var parts []string
		for _, wc := range c.WeightedClusters.GetClusters() {
			parts = append(parts, fmt.Sprintf("%s weight %d", wc.GetName(), wc.GetWeight().GetValue()))
		}
		main = strings.Join(parts, ", ")
	case *routev3.RouteAction_ClusterHeader:
		main = "cluster named by header " + c.ClusterHeader
	default:
		main = "forward"
	}
	var d []string
	if p := a.GetPrefixRewrite(); p != "" {
		d = append(d, "rewrite prefix "+strconv.Quote(p))
	}
	if rr := a.GetRegexRewrite(); rr != nil {
		d = append(d, fmt.Sprintf("rewrite %q to %q", rr.GetPattern().GetRegex(), rr.GetSubstitution()))
	}
	if h := a.GetHostRewriteLiteral(); h != "" {
		d = append(d, "host "+strconv.Quote(h))
	}
	if a.GetAutoHostRewrite().GetValue() {
		d = append(d, "auto host")
	}
	if h := a.GetHostRewriteHeader(); h != "" {
		d = append(d, "host from header "+h)
	}
	d = appendDuration(d, "timeout", a.GetTimeout())
	d = appendDuration(d, "idle timeout", a.GetIdleTimeout())
	if rp := a.GetRetryPolicy(); rp != nil {
		s := fmt.Sprintf("retries %d", rp.GetNumRetries().GetValue())
		if rp.GetRetryOn() != "" {
			s += " on " + rp.GetRetryOn()
		}
		d = append(d, s)
	}
	for _, m := range a.GetRequestMirrorPolicies() {
		d = append(d, "mirror to "+m.GetCluster())
	}
	for _, u := range a.GetUpgradeConfigs() {
		d = append(d, "upgrade "+u.GetUpgradeType())
	}
	if len(a.GetHashPolicy()) > 0 {
		d = append(d, "hash policy")
	}
	return main, d
}

func appendDuration(d []string, what string, v *durationpb.Duration) []string {
	if v == nil {
		return d
	}
	return append(d, what+" "+v.AsDuration().String())
}

// redirectCodes are the HTTP status codes of Envoy's redirect response codes.
var redirectCodes = map[routev3.RedirectAction_RedirectResponseCode]int{
	routev3.RedirectAction_MOVED_PERMANENTLY:  301,
	routev3.RedirectAction_FOUND:              302,
	routev3.RedirectAction_SEE_OTHER:          303,
	routev3.RedirectAction_TEMPORARY_REDIRECT: 307,
	routev3.RedirectAction_PERMANENT_REDIRECT: 308,
}

// describeRedirect writes a redirect as "redirect 301 to https://host:port/path",
// leaving out the parts the redirect keeps from the request: "redirect 301
// to https" changes only the scheme, "redirect 302 to example.org" only the
// host.
func describeRedirect(r *routev3.RedirectAction) string {
	scheme := r.GetSchemeRedirect()
	if r.GetHttpsRedirect() {
		scheme = "https"
	}
	authority := r.GetHostRedirect()
	if p := r.GetPortRedirect(); p != 0 {
		authority += ":" + strconv.Itoa(int(p))
	}
	var target string
	switch {
	case authority == "":
		target = scheme
	case scheme != "":
		target = scheme + "://" + authority
	default:
		target = authority
	}
	switch {
	case r.GetPathRedirect() != "":
		target += r.GetPathRedirect()
	case r.GetPrefixRewrite() != "":
		target += " (prefix " + r.GetPrefixRewrite() + ")"
	case r.GetRegexRewrite() != nil:
		target += fmt.Sprintf(" (rewrite %q to %q)", r.GetRegexRewrite().GetPattern().GetRegex(), r.GetRegexRewrite().GetSubstitution())
	}
	s := fmt.Sprintf("redirect %d", redirectCodes[r.GetResponseCode()])
	if target = strings.TrimSpace(target); target != "" {
		s += " to " + target
	}
	if r.GetStripQuery() {
		s += " (strip query)"
	}
	return s
}

// describeDirectResponse writes "respond 503" and the start of the body.
func describeDirectResponse(d *routev3.DirectResponseAction) string {
	s := fmt.Sprintf("respond %d", d.GetStatus())
	var body string
	switch b := d.GetBody().GetSpecifier().(type) {
	case *corev3.DataSource_InlineString:
		body = b.InlineString
	case *corev3.DataSource_InlineBytes:
		body = string(b.InlineBytes)
	case *corev3.DataSource_Filename:
		return s + " with body from " + b.Filename
	}
	if body == "" {
		return s
	}
	if r := []rune(body); len(r) > maxBody {
		body = string(r[:maxBody]) + "…"
	}
	return s + " " + strconv.Quote(body)
}

// appendVerbs say what each append action does with a header.
var appendVerbs = map[corev3.HeaderValueOption_HeaderAppendAction]string{
	corev3.HeaderValueOption_APPEND_IF_EXISTS_OR_ADD:    "add",
	corev3.HeaderValueOption_ADD_IF_ABSENT:              "add if absent",
	corev3.HeaderValueOption_OVERWRITE_IF_EXISTS_OR_ADD: "set",
	corev3.HeaderValueOption_OVERWRITE_IF_EXISTS:        "overwrite",
}

// describeHeaderChanges lists header changes: "set request header x-a: 1",
// "add response header ...", "remove request header x-b".
func describeHeaderChanges(where string, add []*corev3.HeaderValueOption, remove []string) []string {
	var out []string
	for _, h := range add {
		verb := appendVerbs[h.GetAppendAction()]
		if a := h.GetAppend(); a != nil {
			// The deprecated field wins when set.
			verb = map[bool]string{true: "add", false: "set"}[a.GetValue()]
		}
		out = append(out, fmt.Sprintf("%s %s header %s: %s", verb, where, h.GetHeader().GetKey(), h.GetHeader().GetValue()))
	}
	for _, name := range remove {
		out = append(out, fmt.Sprintf("remove %s header %s", where, name))
	}
	return out
}
