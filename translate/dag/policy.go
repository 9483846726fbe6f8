package dag

import (
	"net"
	"time"
)

// RequestBodyBuffer sends the request body to the authorization server.
type RequestBodyBuffer struct {
	MaxRequestBytes                  uint32
	AllowPartialMessage, PackAsBytes bool
}

// ForwardClientCert selects the client certificate details to forward.
type ForwardClientCert struct {
	Subject, Cert, Chain, DNS, URI bool
}

// DirectResponse is a fixed response.
type DirectResponse struct {
	StatusCode uint32
	Body       string
}

// Timeout is a timeout setting with Contour's three states.
type Timeout struct {
	Set      bool // false: leave Envoy's default
	Duration time.Duration
	// Disabled means "infinity": Envoy gets an explicit 0.
	Disabled bool
}

// RouteTimeout holds a route's timeouts.
type RouteTimeout struct {
	Response Timeout
	Idle     Timeout
}

// RetryPolicy is a route's retry policy.
type RetryPolicy struct {
	RetryOn              string
	NumRetries           uint32
	PerTryTimeout        Timeout
	RetriableStatusCodes []uint32
}

// CookieRewrite rewrites attributes of a Set-Cookie response header.
type CookieRewrite struct {
	Name         string
	Path, Domain *string
	Secure       *bool
	SameSite     *string
}

// HeadersPolicy adds, sets and removes headers; Host is rewritten instead.
type HeadersPolicy struct {
	Set, Add          map[string]string
	Remove            []string
	HostRewrite       string // literal
	HostRewriteHeader string // from another request header
}

func (h *HeadersPolicy) Empty() bool {
	return h == nil || (len(h.Set) == 0 && len(h.Add) == 0 && len(h.Remove) == 0 && h.HostRewrite == "")
}

// Redirect is a redirect response.
type Redirect struct {
	Scheme, Hostname string
	Port             uint32
	StatusCode       int
	Path, Prefix     string
	// PrefixRegexRemove removes the matched prefix (Gateway API
	// ReplacePrefixMatch "/").
	PrefixRegexRemove string
}

// PathRewrite rewrites the request path before it goes upstream: one of a
// prefix replacement, a full-path replacement, or removal of a matched
// prefix (a regex, since Envoy's prefix rewrite cannot remove it cleanly).
type PathRewrite struct {
	Prefix            string
	FullPath          string
	PrefixRegexRemove string
}

// RequestHashPolicy is one input to a consistent-hash load balancer.
type RequestHashPolicy struct {
	Terminal       bool
	Cookie         bool // Contour's session-affinity cookie
	Header         string
	QueryParameter string
	SourceIP       bool
}

// InternalRedirectPolicy lets Envoy follow upstream redirects itself.
type InternalRedirectPolicy struct {
	MaxInternalRedirects      uint32
	RedirectResponseCodes     []uint32
	AllowCrossScheme          string // Always, SafeOnly or Never
	DenyRepeatedRouteRedirect bool
}

// CORSPolicy is a virtual host's CORS policy.
type CORSPolicy struct {
	AllowCredentials, AllowPrivateNetwork     bool
	AllowHeaders, AllowMethods, ExposeHeaders []string
	// AllowOrigin holds exact origins ("*" or scheme://host[:port]) and
	// regexes.
	AllowOrigin []OriginMatch
	MaxAge      Timeout
}

// OriginMatch is one allowed CORS origin.
type OriginMatch struct {
	Value string
	Regex bool
}

// RateLimitPolicy holds local (token bucket in Envoy) and global (rate
// limit service) rate limits.
type RateLimitPolicy struct {
	Local  *LocalRateLimit
	Global []RateLimitDescriptor
}

// LocalRateLimit is a token bucket.
type LocalRateLimit struct {
	MaxTokens, TokensPerFill uint32
	FillInterval             time.Duration
	ResponseStatusCode       uint32
	ResponseHeaders          map[string]string
}

// RateLimitDescriptor is the list of entries of one global rate limit.
type RateLimitDescriptor struct {
	Entries []RateLimitEntry
}

// RateLimitEntry is one descriptor entry; exactly one field is set.
type RateLimitEntry struct {
	GenericKey       *[2]string // key, value
	RequestHeader    *[2]string // header name, descriptor key
	HeaderValueMatch *HeaderValueMatchEntry
	RemoteAddress    bool
}

// HeaderValueMatchEntry adds Value when the headers match (or not).
type HeaderValueMatchEntry struct {
	Headers     []HeaderMatch
	ExpectMatch bool
	Value       string
}

// IPFilter allows or denies requests by client address.
type IPFilter struct {
	Allow bool
	Rules []IPFilterRule
}

// IPFilterRule matches the peer (or, with Remote, the X-Forwarded-For
// derived) address.
type IPFilterRule struct {
	Remote bool
	CIDR   net.IPNet
}
