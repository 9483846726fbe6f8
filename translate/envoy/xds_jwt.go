package envoy

import (
	"time"

	"github.com/contourc/contourc/translate/config"
	"github.com/contourc/contourc/translate/dag"
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	jwtauthnv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/jwt_authn/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
)

// Envoy forms of JWT verification: the jwt_authn HTTP filter of a secure
// virtual host, its per-route requirement, and the remote JWKS clusters.

// jwtAuthnFilterName is both the HTTP filter's name and the route's
// typed_per_filter_config key.
const jwtAuthnFilterName = "envoy.filters.http.jwt_authn"

// jwtAuthnFilter is the jwt_authn filter with one provider and one
// requirement of the same name per provider; routes pick a requirement by
// name, so no rules are needed here. Nil without providers.
func jwtAuthnFilter(providers []*dag.JWTProvider) *hcmv3.HttpFilter {
	if len(providers) == 0 {
		return nil
	}
	cfg := &jwtauthnv3.JwtAuthentication{
		Providers:      map[string]*jwtauthnv3.JwtProvider{},
		RequirementMap: map[string]*jwtauthnv3.JwtRequirement{},
	}
	for _, p := range providers {
		cfg.Providers[p.Name] = jwtProvider(p)
		cfg.RequirementMap[p.Name] = &jwtauthnv3.JwtRequirement{
			RequiresType: &jwtauthnv3.JwtRequirement_ProviderName{ProviderName: p.Name},
		}
	}
	return &hcmv3.HttpFilter{Name: jwtAuthnFilterName, ConfigType: &hcmv3.HttpFilter_TypedConfig{TypedConfig: mustAny(cfg)}}
}

// jwtProvider inlines a local JWKS, or fetches the JWKS through its
// DNS-name cluster. A provider without a source (the DAG never makes one)
// gets an empty key set, which rejects every token, as Contour fails closed.
func jwtProvider(p *dag.JWTProvider) *jwtauthnv3.JwtProvider {
	out := &jwtauthnv3.JwtProvider{Issuer: p.Issuer, Audiences: p.Audiences, Forward: p.ForwardJWT}
	r := p.RemoteJWKS
	if r == nil {
		jwks := `{"keys":[]}`
		if p.LocalJWKS != nil {
			jwks = string(p.LocalJWKS)
		}
		out.JwksSourceSpecifier = &jwtauthnv3.JwtProvider_LocalJwks{LocalJwks: &corev3.DataSource{
			Specifier: &corev3.DataSource_InlineString{InlineString: jwks},
		}}
		return out
	}
	remote := &jwtauthnv3.RemoteJwks{HttpUri: &corev3.HttpUri{
		Uri:              r.URI,
		HttpUpstreamType: &corev3.HttpUri_Cluster{Cluster: r.Cluster.ClusterName()},
		Timeout:          durationpb.New(r.Timeout),
	}}
	if r.CacheDuration != nil {
		remote.CacheDuration = durationpb.New(*r.CacheDuration)
	}
	out.JwksSourceSpecifier = &jwtauthnv3.JwtProvider_RemoteJwks{RemoteJwks: remote}
	return out
}

// jwtPerRouteConfig selects the requirement (named after the provider) a
// route's requests must meet.
func jwtPerRouteConfig(provider string) *anypb.Any {
	return mustAny(&jwtauthnv3.PerRouteConfig{
		RequirementSpecifier: &jwtauthnv3.PerRouteConfig_RequirementName{RequirementName: provider},
	})
}

// dnsNameCluster is Contour's DNSNameCluster: STRICT_DNS (LOGICAL_DNS when
// both address families are wanted) to host:port, over TLS with the host as
// SNI for https.
func dnsNameCluster(c *dag.DNSNameCluster) *clusterv3.Cluster {
	return DNSNameClusterWith(c, config.Defaults())
}

// DNSNameClusterWith is dnsNameCluster with the configuration's upstream
// TLS parameters.
func DNSNameClusterWith(c *dag.DNSNameCluster, s *config.Settings) *clusterv3.Cluster {
	name := c.ClusterName()
	family := dnsLookupFamily(c.DNSLookupFamily)
	discovery := clusterv3.Cluster_STRICT_DNS
	if family == clusterv3.Cluster_ALL {
		discovery = clusterv3.Cluster_LOGICAL_DNS
	}
	out := &clusterv3.Cluster{
		Name:                 name,
		ConnectTimeout:       durationpb.New(2 * time.Second),
		CommonLbConfig:       &clusterv3.Cluster_CommonLbConfig{HealthyPanicThreshold: &typev3.Percent{Value: 0}},
		LbPolicy:             clusterv3.Cluster_ROUND_ROBIN,
		ClusterDiscoveryType: &clusterv3.Cluster_Type{Type: discovery},
		DnsLookupFamily:      family,
		LoadAssignment: &endpointv3.ClusterLoadAssignment{
			ClusterName: name,
			Endpoints: []*endpointv3.LocalityLbEndpoints{{
				LbEndpoints: []*endpointv3.LbEndpoint{lbEndpoint(c.Address, uint32(c.Port))},
			}},
		},
	}
	if c.Scheme == "https" {
		ctx := upstreamTLSContext(c.Address, c.Validation)
		ctx.CommonTlsContext.TlsParams = upstreamTLSParams(s)
		out.TransportSocket = upstreamTransportSocket(ctx)
	}
	return out
}

// dnsLookupFamily maps Contour's names; anything else is Envoy's AUTO.
func dnsLookupFamily(family string) clusterv3.Cluster_DnsLookupFamily {
	switch family {
	case "v4":
		return clusterv3.Cluster_V4_ONLY
	case "v6":
		return clusterv3.Cluster_V6_ONLY
	case "all":
		return clusterv3.Cluster_ALL
	}
	return clusterv3.Cluster_AUTO
}
