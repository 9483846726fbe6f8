package envoy

import (
	"strings"
	"sync"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	extauthzv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ext_authz/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/contourc/contourc/translate/dag"
)

// Envoy forms of external authorization.

// extAuthzFilter is the ext_authz HTTP filter of a secure virtual host.
// Errors talking to the server answer 403 unless it fails open.
func extAuthzFilter(a *dag.ExternalAuthorization) *hcmv3.HttpFilter {
	cfg := &extauthzv3.ExtAuthz{
		ClearRouteCache:        true,
		FailureModeAllow:       a.FailOpen,
		StatusOnError:          &typev3.HttpStatus{Code: typev3.StatusCode_Forbidden},
		TransportApiVersion:    corev3.ApiVersion_V3,
		IncludePeerCertificate: true,
	}
	cluster := a.Extension.ClusterName()
	if a.HTTPService {
		timeout := envoyTimeout(a.ResponseTimeout)
		if timeout == nil {
			timeout = durationpb.New(0)
		}
		svc := &extauthzv3.HttpService{
			// Envoy requires a URI, but the cluster decides where it goes.
			ServerUri:  &corev3.HttpUri{Uri: "http://dummy/", HttpUpstreamType: &corev3.HttpUri_Cluster{Cluster: cluster}, Timeout: timeout},
			PathPrefix: a.PathPrefix,
		}
		if len(a.AllowedAuthorizationHeaders) > 0 {
			cfg.AllowedHeaders = &matcherv3.ListStringMatcher{Patterns: headerNameMatchers(a.AllowedAuthorizationHeaders)}
		}
		if len(a.AllowedUpstreamHeaders) > 0 {
			svc.AuthorizationResponse = &extauthzv3.AuthorizationResponse{AllowedUpstreamHeaders: &matcherv3.ListStringMatcher{Patterns: headerNameMatchers(a.AllowedUpstreamHeaders)}}
		}
		cfg.Services = &extauthzv3.ExtAuthz_HttpService{HttpService: svc}
	} else {
		cfg.Services = &extauthzv3.ExtAuthz_GrpcService{GrpcService: grpcService(cluster, a.Extension.SNI, a.ResponseTimeout)}
		cfg.MetadataContextNamespaces = []string{}
	}
	if b := a.WithRequestBody; b != nil {
		cfg.WithRequestBody = &extauthzv3.BufferSettings{MaxRequestBytes: b.MaxRequestBytes, AllowPartialMessage: b.AllowPartialMessage, PackAsBytes: b.PackAsBytes}
	}
	return &hcmv3.HttpFilter{Name: "envoy.filters.http.ext_authz", ConfigType: &hcmv3.HttpFilter_TypedConfig{TypedConfig: mustAny(cfg)}}
}

// grpcService calls an extension cluster over Envoy's gRPC client; the
// authority is the SNI, or the cluster name with dots for slashes.
func grpcService(cluster, sni string, timeout dag.Timeout) *corev3.GrpcService {
	authority := strings.ReplaceAll(cluster, "/", ".")
	if sni != "" {
		authority = sni
	}
	return &corev3.GrpcService{
		TargetSpecifier: &corev3.GrpcService_EnvoyGrpc_{EnvoyGrpc: &corev3.GrpcService_EnvoyGrpc{ClusterName: cluster, Authority: authority}},
		Timeout:         envoyTimeout(timeout),
	}
}

func headerNameMatchers(in []dag.HeaderNameMatch) []*matcherv3.StringMatcher {
	var out []*matcherv3.StringMatcher
	for _, h := range in {
		m := &matcherv3.StringMatcher{IgnoreCase: h.IgnoreCase}
		switch h.Type {
		case "exact":
			m.MatchPattern = &matcherv3.StringMatcher_Exact{Exact: h.Value}
		case "prefix":
			m.MatchPattern = &matcherv3.StringMatcher_Prefix{Prefix: h.Value}
		case "suffix":
			m.MatchPattern = &matcherv3.StringMatcher_Suffix{Suffix: h.Value}
		case "contains":
			m.MatchPattern = &matcherv3.StringMatcher_Contains{Contains: h.Value}
		}
		out = append(out, m)
	}
	return out
}

// authzDisabled is the ext_authz override that turns checks off on a
// route, packed once and shared, as the fixed HTTP filters are: every
// HTTP-to-HTTPS redirect carries it, thousands of them.
var authzDisabled = sync.OnceValue(func() *anypb.Any {
	return mustAny(&extauthzv3.ExtAuthzPerRoute{Override: &extauthzv3.ExtAuthzPerRoute_Disabled{Disabled: true}})
})

// routeAuthzConfig is a route's ext_authz override: disabled, or extra
// context for the check request; nil when there is none.
func routeAuthzConfig(r *dag.Route) *anypb.Any {
	switch {
	case r.AuthDisabled:
		return authzDisabled()
	case len(r.AuthContext) > 0:
		return mustAny(&extauthzv3.ExtAuthzPerRoute{Override: &extauthzv3.ExtAuthzPerRoute_CheckSettings{
			CheckSettings: &extauthzv3.CheckSettings{ContextExtensions: r.AuthContext},
		}})
	}
	return nil
}
