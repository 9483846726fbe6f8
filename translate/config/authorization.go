package config

import (
	"errors"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/dag"
)

// An authorization server's serviceType and httpSettings (not in the
// published Contour API module, v1.33: the loader's extensions), checked
// alike for an HTTPProxy's server and the configuration's globalExtAuth.

// AuthorizationError is a problem with an authorization server: its status
// reason, and the message (which a configuration error also uses).
type AuthorizationError struct{ Reason, Msg string }

func (e *AuthorizationError) Error() string { return e.Msg }

// ApplyAuthorizationServiceType sets the server's protocol and HTTP settings, with
// Contour's checks in its order: an HTTP server cannot be sent the
// policy's context, and the header matchers are checked whatever the
// protocol. The CRD's CEL rule refusing httpSettings on a gRPC server is
// not checked by Contour's code: as there, they then only go unused.
func ApplyAuthorizationServiceType(a *dag.ExternalAuthorization, policy *contourv1.AuthorizationPolicy, ext *loader.AuthorizationExtensions) *AuthorizationError {
	a.HTTPService = ext.HTTP()
	if a.HTTPService && policy != nil && len(policy.Context) > 0 {
		return &AuthorizationError{"AuthContextForHTTP", "Spec.Virtualhost.Authorization.AuthPolicy.Context are only applied to grpc service type"}
	}
	hs := ext.Settings()
	if hs == nil {
		return nil
	}
	var err error
	if a.AllowedAuthorizationHeaders, err = headerNameMatches(hs.AllowedAuthorizationHeaders); err != nil {
		return &AuthorizationError{"AuthBadAllowedHeader", "Spec.Virtualhost.Authorization.HTTPServerSettings.AllowedAuthorizationHeaders is invalid: " + err.Error()}
	}
	if a.AllowedUpstreamHeaders, err = headerNameMatches(hs.AllowedUpstreamHeaders); err != nil {
		return &AuthorizationError{"AuthBadAllowedHeader", "Spec.Virtualhost.Authorization.HTTPServerSettings.AllowedUpstreamHeaders is invalid: " + err.Error()}
	}
	a.PathPrefix = hs.PathPrefix
	return nil
}

// headerNameMatches converts allowed header matchers, each of which must
// set exactly one of exact, prefix, suffix and contains.
func headerNameMatches(in []loader.AllowedHeader) ([]dag.HeaderNameMatch, error) {
	var out []dag.HeaderNameMatch
	for _, h := range in {
		var set []dag.HeaderNameMatch
		for _, m := range []dag.HeaderNameMatch{
			{Type: "exact", Value: h.Exact, IgnoreCase: h.IgnoreCase},
			{Type: "prefix", Value: h.Prefix, IgnoreCase: h.IgnoreCase},
			{Type: "suffix", Value: h.Suffix, IgnoreCase: h.IgnoreCase},
			{Type: "contains", Value: h.Contains, IgnoreCase: h.IgnoreCase},
		} {
			if m.Value != "" {
				set = append(set, m)
			}
		}
		switch len(set) {
		case 0:
			return nil, errors.New("one of prefix, suffix, exact or contains is required for each allowedHeader")
		case 1:
			out = append(out, set[0])
		default:
			return nil, errors.New("only one of prefix, suffix, exact, and contains should be set in the allowedHeader")
		}
	}
	return out, nil
}
