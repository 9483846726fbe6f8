package loader

import (
	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	contourv1alpha1 "github.com/projectcontour/contour/apis/projectcontour/v1alpha1"
)

// Schema validation of the projectcontour.io kinds that the API server
// does and Contour's code takes for granted: the enums, patterns and ranges
// of the "+kubebuilder:validation" markers, and the required fields of the
// objects Contour walks. CEL rules (x-kubernetes-validations) are left to
// translation, which reports them as Contour would report the invalid
// object.

// Patterns shared by several fields.
const (
	// dnsSubdomainPattern is an RFC 1123 subdomain.
	dnsSubdomainPattern = `^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// wildcardSubdomainPattern also allows a leading "*." label.
	wildcardSubdomainPattern = `^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// durationPattern is a Go duration (without a sign).
	durationPattern = `^(((\d*(\.\d*)?h)|(\d*(\.\d*)?m)|(\d*(\.\d*)?s)|(\d*(\.\d*)?ms)|(\d*(\.\d*)?us)|(\d*(\.\d*)?µs)|(\d*(\.\d*)?ns))+)$`
	// timeoutPattern is a duration or "infinity".
	timeoutPattern = `^(((\d*(\.\d*)?h)|(\d*(\.\d*)?m)|(\d*(\.\d*)?s)|(\d*(\.\d*)?ms)|(\d*(\.\d*)?us)|(\d*(\.\d*)?µs)|(\d*(\.\d*)?ns))+|infinity|infinite)$`
	// cookieNamePattern is an HTTP token (RFC 6265 cookie-name).
	cookieNamePattern = `^[^()<>@,;:\\"\/[\]?={} \t\x7f\x00-\x1f]+$`
	// cookiePathPattern is a cookie path attribute value.
	cookiePathPattern = `^[^;\x7f\x00-\x1f]+$`
)

func init() {
	validateHTTPProxyTypes()
	validateHTTPProxyPolicies()
	validateContourV1alpha1()
}

// validateHTTPProxyTypes covers the types at the core of an HTTPProxy.
func validateHTTPProxyTypes() {
	requireFields(contourv1.VirtualHost{}, "fqdn")
	checkField(contourv1.VirtualHost{}, "fqdn", nonEmpty(), matches(wildcardSubdomainPattern))
	requireFields(contourv1.Include{}, "name")
	checkField(contourv1.Include{}, "name", nonEmpty())
	requireFields(contourv1.Service{}, "name", "port")
	checkField(contourv1.Service{}, "port", between(1, 65536))
	checkField(contourv1.Service{}, "healthPort", between(1, 65535))
	checkField(contourv1.Service{}, "protocol", oneOf("h2", "h2c", "tls"))
	checkField(contourv1.Service{}, "weight", atLeast(0))
	checkField(contourv1.HeaderMatchCondition{}, "name", nonEmpty())
	checkType(contourv1.IPFilterSource(""), oneOf("Peer", "Remote"))
	checkType(contourv1.CORSHeaderValue(""), matches("^[a-zA-Z0-9!#$%&'*+.^_`|~-]+$"))
	checkField(contourv1.CORSPolicy{}, "maxAge", matches(`^(((\d*(\.\d*)?h)|(\d*(\.\d*)?m)|(\d*(\.\d*)?s)|(\d*(\.\d*)?ms)|(\d*(\.\d*)?us)|(\d*(\.\d*)?µs)|(\d*(\.\d*)?ns))+|0)$`))
	requireFields(contourv1.CORSPolicy{}, "allowOrigin", "allowMethods")
	checkField(contourv1.CORSPolicy{}, "allowOrigin", nonEmpty())
	checkField(contourv1.CORSPolicy{}, "allowMethods", nonEmpty())
	checkField(contourv1.AuthorizationServer{}, "responseTimeout", matches(timeoutPattern))
	checkField(contourv1.AuthorizationServerBufferSettings{}, "maxRequestBytes", atLeast(1))
	requireFields(contourv1.JWTProvider{}, "name")
	checkField(contourv1.JWTProvider{}, "name", nonEmpty())
	checkField(contourv1.RemoteJWKS{}, "timeout", matches(durationPattern))
	checkField(contourv1.RemoteJWKS{}, "cacheDuration", matches(durationPattern))
	checkField(contourv1.RemoteJWKS{}, "dnsLookupFamily", oneOf("auto", "v4", "v6"))
	checkField(contourv1.UpstreamValidation{}, "caSecret", nonEmpty())
	checkField(contourv1.UpstreamValidation{}, "subjectName", nonEmpty())
	checkField(contourv1.DownstreamValidation{}, "caSecret", nonEmpty())
	checkField(contourv1.DownstreamValidation{}, "crlSecret", nonEmpty())
}

// validateHTTPProxyPolicies covers the route and service policies.
func validateHTTPProxyPolicies() {
	checkField(contourv1.HTTPDirectResponsePolicy{}, "statusCode", between(200, 599))
	checkField(contourv1.HTTPRequestRedirectPolicy{}, "scheme", oneOf("http", "https"))
	checkField(contourv1.HTTPRequestRedirectPolicy{}, "hostname", lengthBetween(1, 253), matches(dnsSubdomainPattern))
	checkField(contourv1.HTTPRequestRedirectPolicy{}, "port", between(1, 65535))
	checkField(contourv1.HTTPRequestRedirectPolicy{}, "path", matches(`^\/.*$`))
	checkField(contourv1.HTTPRequestRedirectPolicy{}, "prefix", matches(`^\/.*$`))
	checkType(contourv1.RedirectResponseCode(0), oneOf(301, 302, 303, 307, 308))
	checkField(contourv1.HTTPInternalRedirectPolicy{}, "allowCrossSchemeRedirect", oneOf("Always", "Never", "SafeOnly"))
	checkField(contourv1.CookieRewritePolicy{}, "name", lengthBetween(1, 4096), matches(cookieNamePattern))
	checkField(contourv1.CookieRewritePolicy{}, "sameSite", oneOf("Strict", "Lax", "None"))
	checkField(contourv1.CookiePathRewrite{}, "value", lengthBetween(1, 4096), matches(cookiePathPattern))
	checkField(contourv1.CookieDomainRewrite{}, "value", lengthBetween(1, 4096), matches(dnsSubdomainPattern))
	checkField(contourv1.LocalRateLimitPolicy{}, "requests", atLeast(1))
	checkField(contourv1.LocalRateLimitPolicy{}, "unit", oneOf("second", "minute", "hour"))
	checkField(contourv1.LocalRateLimitPolicy{}, "responseStatusCode", between(400, 599))
	checkField(contourv1.HTTPHealthCheckPolicy{}, "unhealthyThresholdCount", atLeast(0))
	checkField(contourv1.HTTPHealthCheckPolicy{}, "healthyThresholdCount", atLeast(0))
	checkField(contourv1.HTTPStatusRange{}, "start", between(100, 599))
	checkField(contourv1.HTTPStatusRange{}, "end", between(101, 600))
	checkField(contourv1.TimeoutPolicy{}, "response", matches(timeoutPattern))
	checkField(contourv1.TimeoutPolicy{}, "idle", matches(timeoutPattern))
	checkField(contourv1.TimeoutPolicy{}, "idleConnection", matches(timeoutPattern))
	checkField(contourv1.RetryPolicy{}, "count", atLeast(-1))
	checkField(contourv1.RetryPolicy{}, "perTryTimeout", matches(timeoutPattern))
	checkType(contourv1.RetryOn(""), oneOf("5xx", "gateway-error", "reset", "reset-before-request", "connect-failure",
		"envoy-ratelimited", "retriable-4xx", "refused-stream", "retriable-status-codes", "retriable-headers",
		"http3-post-connect-failure", "cancelled", "deadline-exceeded", "internal", "resource-exhausted", "unavailable"))
	checkField(contourv1.ReplacePrefix{}, "prefix", nonEmpty())
	requireFields(contourv1.ReplacePrefix{}, "replacement")
	checkField(contourv1.ReplacePrefix{}, "replacement", nonEmpty())
	checkField(contourv1.HeaderHashOptions{}, "headerName", nonEmpty())
	requireFields(contourv1.HeaderHashOptions{}, "headerName")
	checkField(contourv1.QueryParameterHashOptions{}, "parameterName", nonEmpty())
	requireFields(contourv1.QueryParameterHashOptions{}, "parameterName")
	requireFields(contourv1.HeaderValue{}, "name", "value")
	checkField(contourv1.HeaderValue{}, "name", nonEmpty())
	checkField(contourv1.HeaderValue{}, "value", nonEmpty())
	requireFields(contourv1.SlowStartPolicy{}, "window")
	checkField(contourv1.SlowStartPolicy{}, "window", matches(durationPattern))
	checkField(contourv1.SlowStartPolicy{}, "aggression", matches(`^([0-9]+([.][0-9]+)?|[.][0-9]+)$`))
	checkField(contourv1.SlowStartPolicy{}, "minWeightPercent", between(0, 100))
	checkField(contourv1.GlobalRateLimitPolicy{}, "descriptors", nonEmpty())
	checkField(contourv1.RateLimitDescriptor{}, "entries", nonEmpty())
	checkField(contourv1.GenericKeyDescriptor{}, "value", nonEmpty())
	checkField(contourv1.RequestHeaderDescriptor{}, "headerName", nonEmpty())
	checkField(contourv1.RequestHeaderDescriptor{}, "descriptorKey", nonEmpty())
	checkField(contourv1.RequestHeaderValueMatchDescriptor{}, "headers", nonEmpty())
	checkField(contourv1.RequestHeaderValueMatchDescriptor{}, "value", nonEmpty())
}

// validateContourV1alpha1 covers ExtensionService.
func validateContourV1alpha1() {
	requireFields(contourv1alpha1.ExtensionServiceSpec{}, "services")
	checkField(contourv1alpha1.ExtensionServiceSpec{}, "services", nonEmpty())
	requireFields(contourv1alpha1.ExtensionServiceTarget{}, "name", "port")
	checkField(contourv1alpha1.ExtensionServiceTarget{}, "port", between(1, 65536))
	checkField(contourv1alpha1.ExtensionServiceSpec{}, "protocol", oneOf("h2", "h2c"))
	checkField(contourv1alpha1.ExtensionServiceSpec{}, "protocolVersion", oneOf("v3"))
}
