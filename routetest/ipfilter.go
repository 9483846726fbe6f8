package routetest

import (
	"fmt"
	"net/netip"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	rbacv3 "github.com/envoyproxy/go-control-plane/envoy/config/rbac/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	rbacfilterv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/rbac/v3"
)

// ipFilterFor evaluates the RBAC filter's per-route configuration, which
// is how Contour expresses IP allow and deny lists. The connection
// manager's own RBAC config is empty (it allows everything), so without a
// per-route one there is no filter. Contour's connection managers use the
// connection's address as the client's (use_remote_address, no trusted
// hops), so remote_ip and direct_remote_ip both test SourceAddress.
func ipFilterFor(filter string, vh *routev3.VirtualHost, r *routev3.Route, q *request, d *Decision) *IPFilter {
	a, from := perFilterConfig(filter, vh, r)
	if a == nil {
		return nil
	}
	per := &rbacfilterv3.RBACPerRoute{}
	if err := a.UnmarshalTo(per); err != nil {
		d.note("rbac per-route configuration: %v", err)
		return nil
	}
	rules := per.GetRbac().GetRules()
	if rules == nil {
		return nil
	}
	f := &IPFilter{Action: "allow", CIDRs: []string{}, Verdict: "unknown"}
	if rules.GetAction() == rbacv3.RBAC_DENY {
		f.Action = "deny"
	} else if rules.GetAction() != rbacv3.RBAC_ALLOW {
		d.note("rbac action %s on the %s is not evaluated", rules.GetAction(), from)
		return nil
	}
	matched, known := false, true
	for _, p := range rules.GetPolicies() {
		for _, pr := range p.GetPrincipals() {
			f.CIDRs = append(f.CIDRs, principalCIDRs(pr)...)
		}
		if !q.source.IsValid() {
			continue
		}
		m, ok := policyMatches(p, q.source)
		known = known && ok
		matched = matched || m
	}
	switch {
	case !q.source.IsValid():
		d.note("the %s has an IP filter (%s %v); give the request a sourceAddress to apply it", from, f.Action, f.CIDRs)
	case !known:
		d.note("the IP filter on the %s uses rules contourc does not evaluate", from)
	case matched == (f.Action == "allow"):
		f.Verdict = "allowed"
	default:
		f.Verdict = "denied"
	}
	return f
}

// policyMatches evaluates one RBAC policy for a client address: any
// permission and any principal must match. ok is false when a rule is
// of a kind contourc does not evaluate.
func policyMatches(p *rbacv3.Policy, addr netip.Addr) (matched, ok bool) {
	perm := false
	for _, pm := range p.GetPermissions() {
		if !pm.GetAny() {
			return false, false
		}
		perm = true
	}
	if !perm {
		return false, true
	}
	for _, pr := range p.GetPrincipals() {
		m, ok := principalMatches(pr, addr)
		if !ok {
			return false, false
		}
		if m {
			return true, true
		}
	}
	return false, true
}

func principalMatches(pr *rbacv3.Principal, addr netip.Addr) (matched, ok bool) {
	switch id := pr.GetIdentifier().(type) {
	case *rbacv3.Principal_Any:
		return id.Any, true
	case *rbacv3.Principal_RemoteIp:
		return cidrContains(id.RemoteIp, addr)
	case *rbacv3.Principal_DirectRemoteIp:
		return cidrContains(id.DirectRemoteIp, addr)
	case *rbacv3.Principal_SourceIp: //nolint:staticcheck // deprecated, same meaning here
		return cidrContains(id.SourceIp, addr)
	case *rbacv3.Principal_NotId:
		m, ok := principalMatches(id.NotId, addr)
		return !m, ok
	case *rbacv3.Principal_OrIds:
		for _, sub := range id.OrIds.GetIds() {
			m, ok := principalMatches(sub, addr)
			if !ok {
				return false, false
			}
			if m {
				return true, true
			}
		}
		return false, true
	case *rbacv3.Principal_AndIds:
		for _, sub := range id.AndIds.GetIds() {
			m, ok := principalMatches(sub, addr)
			if !ok || !m {
				return false, ok
			}
		}
		return true, true
	}
	return false, false
}

func cidrContains(r *corev3.CidrRange, addr netip.Addr) (bool, bool) {
	p, err := cidrPrefix(r)
	if err != nil {
		return false, false
	}
	return p.Contains(addr), true
}

func cidrPrefix(r *corev3.CidrRange) (netip.Prefix, error) {
	a, err := netip.ParseAddr(r.GetAddressPrefix())
	if err != nil {
		return netip.Prefix{}, err
	}
	bits := a.BitLen()
	if pl := r.GetPrefixLen(); pl != nil {
		bits = int(pl.GetValue())
	}
	return a.Unmap().Prefix(bits)
}

// principalCIDRs lists the address ranges a principal names, for display.
func principalCIDRs(pr *rbacv3.Principal) []string {
	var r *corev3.CidrRange
	switch id := pr.GetIdentifier().(type) {
	case *rbacv3.Principal_RemoteIp:
		r = id.RemoteIp
	case *rbacv3.Principal_DirectRemoteIp:
		r = id.DirectRemoteIp
	default:
		return nil
	}
	p, err := cidrPrefix(r)
	if err != nil {
		return []string{fmt.Sprintf("%s/%d", r.GetAddressPrefix(), r.GetPrefixLen().GetValue())}
	}
	return []string{p.String()}
}
