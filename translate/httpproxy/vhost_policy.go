package httpproxy

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"

	"github.com/contourc/contourc/translate/config"
	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/internal/httpheader"
	"github.com/contourc/contourc/translate/internal/status"
)

// Virtual-host (and route) policies of HTTPProxy: CORS, rate limits and
// IP filters.

// corsPolicy converts a CORS policy. An origin that is not exactly
// scheme://host[:port] (or "*") is a regex.
func corsPolicy(p *contourv1.CORSPolicy) (*dag.CORSPolicy, error) {
	if p == nil {
		return nil, nil
	}
	if len(p.AllowOrigin) == 0 {
		return nil, errors.New("invalid allowed origin configuration with length 0")
	}
	out := &dag.CORSPolicy{
		AllowCredentials:    p.AllowCredentials,
		AllowPrivateNetwork: p.AllowPrivateNetwork,
		AllowHeaders:        headerValueStrings(p.AllowHeaders),
		AllowMethods:        headerValueStrings(p.AllowMethods),
		ExposeHeaders:       headerValueStrings(p.ExposeHeaders),
	}
	for _, origin := range p.AllowOrigin {
		m, err := originMatch(origin)
		if err != nil {
			return nil, fmt.Errorf("invalid allowed origin %q: %w", origin, err)
		}
		out.AllowOrigin = append(out.AllowOrigin, m)
	}
	if len(p.AllowMethods) == 0 {
		return nil, errors.New("invalid allowed methods configuration with length 0")
	}
	maxAge, err := parseMaxAge(p.MaxAge)
	if err != nil {
		return nil, err
	}
	out.MaxAge = maxAge
	return out, nil
}

func originMatch(origin string) (dag.OriginMatch, error) {
	if origin == "*" {
		return dag.OriginMatch{Value: origin}, nil
	}
	u, err := url.Parse(origin)
	if err == nil && u.Scheme != "" && u.Host != "" && u.Scheme+"://"+u.Host == origin {
		return dag.OriginMatch{Value: origin}, nil
	}
	if _, err := regexp.Compile(origin); err != nil {
		return dag.OriginMatch{}, errors.New("allowed origin is invalid exact match and invalid regex match")
	}
	return dag.OriginMatch{Value: origin, Regex: true}, nil
}

// parseMaxAge reads a CORS max age: "" is Envoy's default, "0s" disables
// caching.
func parseMaxAge(s string) (dag.Timeout, error) {
	if s == "" {
		return dag.Timeout{}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return dag.Timeout{}, fmt.Errorf("unable to parse timeout string %q: %w", s, err)
	}
	if d < 0 {
		return dag.Timeout{}, fmt.Errorf("invalid max age value %q", s)
	}
	if d == 0 {
		return dag.Timeout{Set: true, Disabled: true}, nil
	}
	return dag.Timeout{Set: true, Duration: d}, nil
}

func headerValueStrings(in []contourv1.CORSHeaderValue) []string {
	out := make([]string, len(in))
	for i, v := range in {
		out[i] = string(v)
	}
	return out
}

// rateLimitPolicy converts local and global rate limits; a policy with
// neither a local limit nor global descriptors is no policy.
func rateLimitPolicy(p *contourv1.RateLimitPolicy) (*dag.RateLimitPolicy, error) {
	if p == nil || (p.Local == nil && (p.Global == nil || len(p.Global.Descriptors) == 0)) {
		return nil, nil
	}
	out := &dag.RateLimitPolicy{}
	var err error
	if out.Local, err = localRateLimit(p.Local); err != nil {
		return nil, err
	}
	if p.Global != nil && !p.Global.Disabled {
		if out.Global, err = globalRateLimits(p.Global.Descriptors); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func localRateLimit(p *contourv1.LocalRateLimitPolicy) (*dag.LocalRateLimit, error) {
	if p == nil {
		return nil, nil
	}
	if p.Requests <= 0 {
		return nil, fmt.Errorf("invalid requests value %d in local rate limit policy", p.Requests)
	}
	interval, ok := map[string]time.Duration{"second": time.Second, "minute": time.Minute, "hour": time.Hour}[p.Unit]
	if !ok {
		return nil, fmt.Errorf("invalid unit %q in local rate limit policy", p.Unit)
	}
	out := &dag.LocalRateLimit{MaxTokens: p.Requests + p.Burst, TokensPerFill: p.Requests, FillInterval: interval, ResponseStatusCode: p.ResponseStatusCode}
	for _, h := range p.ResponseHeadersToAdd {
		if out.ResponseHeaders == nil {
			out.ResponseHeaders = map[string]string{}
		}
		key := http.CanonicalHeaderKey(h.Name)
		if _, dup := out.ResponseHeaders[key]; dup {
			return nil, fmt.Errorf("duplicate header addition: %q", key)
		}
		if msgs := httpheader.NameProblems(key); len(msgs) != 0 {
			return nil, fmt.Errorf("invalid header name %q: %v", key, msgs)
		}
		out.ResponseHeaders[key] = httpheader.EscapeValue(h.Value, nil)
	}
	return out, nil
}

func globalRateLimits(in []contourv1.RateLimitDescriptor) ([]dag.RateLimitDescriptor, error) {
	var out []dag.RateLimitDescriptor
	for _, d := range in {
		var desc dag.RateLimitDescriptor
		for _, e := range d.Entries {
			var entry dag.RateLimitEntry
			set := 0
			if g := e.GenericKey; g != nil {
				set++
				entry.GenericKey = &[2]string{g.Key, g.Value}
			}
			if h := e.RequestHeader; h != nil {
				set++
				entry.RequestHeader = &[2]string{h.HeaderName, h.DescriptorKey}
			}
			if m := e.RequestHeaderValueMatch; m != nil {
				set++
				hv := &dag.HeaderValueMatchEntry{ExpectMatch: m.ExpectMatch, Value: m.Value}
				for _, h := range m.Headers {
					if hm, ok := headerCondition(h); ok {
						hv.Headers = append(hv.Headers, hm)
					}
				}
				entry.HeaderValueMatch = hv
			}
			if e.RemoteAddress != nil {
				set++
				entry.RemoteAddress = true
			}
			if set != 1 {
				return nil, errors.New("rate limit descriptor entry must have exactly one field set")
			}
			desc.Entries = append(desc.Entries, entry)
		}
		out = append(out, desc)
	}
	return out, nil
}

// ipFilter converts allow or deny policies; bare addresses are /32 or
// /128. Unparsable CIDRs are reported and void the whole filter.
func ipFilter(allow, deny []contourv1.IPFilterPolicy, st *status.Proxy) (*dag.IPFilter, error) {
	var policies []contourv1.IPFilterPolicy
	out := &dag.IPFilter{}
	switch {
	case len(allow) > 0 && len(deny) > 0:
		st.AddError("IPFilterError", "IncompatibleIPAddressFilters", "cannot specify both `ipAllowPolicy` and `ipDenyPolicy`")
		return nil, errors.New("invalid ip filter")
	case len(allow) > 0:
		out.Allow, policies = true, allow
	case len(deny) > 0:
		policies = deny
	default:
		return nil, nil
	}
	var err error
	for _, p := range policies {
		cidr := p.CIDR
		if !strings.Contains(cidr, "/") {
			if strings.Contains(cidr, ":") {
				cidr += "/128"
			} else {
				cidr += "/32"
			}
		}
		var ipnet *net.IPNet
		if _, ipnet, err = net.ParseCIDR(cidr); err != nil {
			st.AddError("IPFilterError", "InvalidCIDR", "%s failed to parse: %s", p.CIDR, err)
			continue
		}
		out.Rules = append(out.Rules, dag.IPFilterRule{Remote: p.Source == contourv1.IPFilterSourceRemote, CIDR: *ipnet})
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// withDefaultGlobalRateLimit attaches the rate limit service's default
// global policy to a virtual host that has no global policy of its own and
// does not opt out.
func withDefaultGlobalRateLimit(rl *dag.RateLimitPolicy, spec *contourv1.RateLimitPolicy, s *config.Settings) (*dag.RateLimitPolicy, error) {
	if s == nil || s.RateLimitService == nil || s.RateLimitService.DefaultGlobalRateLimitPolicy == nil {
		return rl, nil
	}
	if spec != nil && spec.Global != nil && (spec.Global.Disabled || len(spec.Global.Descriptors) > 0) {
		return rl, nil // opted out, or its own policy
	}
	def := s.RateLimitService.DefaultGlobalRateLimitPolicy
	if def.Disabled {
		return rl, nil
	}
	global, err := globalRateLimits(def.Descriptors)
	if err != nil {
		return nil, err
	}
	if rl == nil {
		rl = &dag.RateLimitPolicy{}
	}
	rl.Global = global
	return rl, nil
}
