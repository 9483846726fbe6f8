package render

// Handmade resources in the shape Contour serves them: small enough to read,
// covering each thing the renderers treat specially.

import (
	"fmt"
	"os"
	"testing"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	routerv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/router/v3"
	tlsinspectorv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/listener/tls_inspector/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	runtimev3 "github.com/envoyproxy/go-control-plane/envoy/service/runtime/v3"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/contourc/contourc/internal/prototest"
	"github.com/contourc/contourc/translate"
)

const (
	wwwCluster   = "default/www/80/da39a3ee5e"
	emptyCluster = "default/empty/80/da39a3ee5e"
	wwwSecret    = "default/www-tls/ec8b6e2a3f"
)

// testResources: ingress_http (RDS), ingress_https (an SNI chain with an SDS
// certificate), stats-health and envoy-admin (inline routes to envoy-admin),
// an EDS cluster with two endpoints, an EDS cluster with none, a secret and
// Contour's runtime layer.
func testResources(t testing.TB) *translate.Resources {
	t.Helper()
	return &translate.Resources{
		Listeners: []*listenerv3.Listener{
			adminListener("envoy-admin", "127.0.0.1", 9001, "/stats"),
			httpListener(t),
			httpsListener(t),
			adminListener("stats-health", "0.0.0.0", 8002, "/ready", "/stats"),
		},
		RouteConfigs: []*routev3.RouteConfiguration{
			routeConfig("https/www.example.com", "www.example.com", clusterRoute(wwwCluster)),
			routeConfig("ingress_http", "www.example.com", weightedRoute(wwwCluster, emptyCluster)),
		},
		Clusters: []*clusterv3.Cluster{
			edsCluster(emptyCluster, "default/empty"),
			edsCluster(wwwCluster, "default/www"),
		},
		Endpoints: []*endpointv3.ClusterLoadAssignment{
			loadAssignment("default/www", "10.0.0.1", "10.0.0.2"),
		},
		Secrets: []*tlsv3.Secret{tlsSecret(t, wwwSecret)},
		Runtimes: []*runtimev3.Runtime{{
			Name: "dynamic",
			Layer: prototest.Struct(t, map[string]any{
				"re2.max_program_size.error_level": 1 << 20,
				"re2.max_program_size.warn_level":  1000,
			}),
		}},
	}
}

// xdsSource is the ConfigSource Contour puts in RDS, EDS and SDS references.
func xdsSource() *corev3.ConfigSource {
	return &corev3.ConfigSource{
		ResourceApiVersion: corev3.ApiVersion_V3,
		ConfigSourceSpecifier: &corev3.ConfigSource_ApiConfigSource{
			ApiConfigSource: &corev3.ApiConfigSource{
				ApiType:             corev3.ApiConfigSource_GRPC,
				TransportApiVersion: corev3.ApiVersion_V3,
				GrpcServices: []*corev3.GrpcService{{
					TargetSpecifier: &corev3.GrpcService_EnvoyGrpc_{
						EnvoyGrpc: &corev3.GrpcService_EnvoyGrpc{ClusterName: "contour", Authority: "contour"},
					},
				}},
			},
		},
	}
}

func httpListener(t testing.TB) *listenerv3.Listener {
	return &listenerv3.Listener{
		Name:    "ingress_http",
		Address: socketAddress("0.0.0.0", 8080),
		FilterChains: []*listenerv3.FilterChain{{
			Filters: []*listenerv3.Filter{rdsHCM(t, "ingress_http", "ingress_http")},
		}},
	}
}

func httpsListener(t testing.TB) *listenerv3.Listener {
	return &listenerv3.Listener{
		Name:    "ingress_https",
		Address: socketAddress("0.0.0.0", 8443),
		ListenerFilters: []*listenerv3.ListenerFilter{{
			Name:       "envoy.filters.listener.tls_inspector",
			ConfigType: &listenerv3.ListenerFilter_TypedConfig{TypedConfig: prototest.Any(t, &tlsinspectorv3.TlsInspector{})},
		}},
		FilterChains: []*listenerv3.FilterChain{{
			FilterChainMatch: &listenerv3.FilterChainMatch{ServerNames: []string{"www.example.com"}},
			Filters:          []*listenerv3.Filter{rdsHCM(t, "ingress_https", "https/www.example.com")},
			TransportSocket: &corev3.TransportSocket{
				Name: "envoy.transport_sockets.tls",
				ConfigType: &corev3.TransportSocket_TypedConfig{TypedConfig: prototest.Any(t, &tlsv3.DownstreamTlsContext{
					CommonTlsContext: &tlsv3.CommonTlsContext{
						TlsCertificateSdsSecretConfigs: []*tlsv3.SdsSecretConfig{{Name: wwwSecret, SdsConfig: xdsSource()}},
						AlpnProtocols:                  []string{"h2", "http/1.1"},
					},
				})},
			},
		}},
	}
}

// adminListener is Contour's stats-health or envoy-admin listener: inline
// routes for paths to the envoy-admin cluster.
func adminListener(name, address string, port uint32, paths ...string) *listenerv3.Listener {
	var routes []*routev3.Route
	for _, p := range paths {
		routes = append(routes, &routev3.Route{
			Match:  &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Path{Path: p}},
			Action: clusterRoute("envoy-admin").Action,
		})
	}
	hcm := &hcmv3.HttpConnectionManager{
		StatPrefix: name,
		RouteSpecifier: &hcmv3.HttpConnectionManager_RouteConfig{RouteConfig: &routev3.RouteConfiguration{
			VirtualHosts: []*routev3.VirtualHost{{Name: "backend", Domains: []string{"*"}, Routes: routes}},
		}},
		HttpFilters: routerFilter(),
	}
	return &listenerv3.Listener{
		Name:         name,
		Address:      socketAddress(address, port),
		FilterChains: []*listenerv3.FilterChain{{Filters: []*listenerv3.Filter{hcmFilter(hcm)}}},
	}
}

func rdsHCM(t testing.TB, statPrefix, routeConfigName string) *listenerv3.Filter {
	return hcmFilter(&hcmv3.HttpConnectionManager{
		StatPrefix: statPrefix,
		RouteSpecifier: &hcmv3.HttpConnectionManager_Rds{Rds: &hcmv3.Rds{
			ConfigSource:    xdsSource(),
			RouteConfigName: routeConfigName,
		}},
		HttpFilters: routerFilter(),
	})
}

func hcmFilter(hcm *hcmv3.HttpConnectionManager) *listenerv3.Filter {
	a, err := anypb.New(hcm)
	if err != nil {
		panic(err)
	}
	return &listenerv3.Filter{
		Name:       "envoy.filters.network.http_connection_manager",
		ConfigType: &listenerv3.Filter_TypedConfig{TypedConfig: a},
	}
}

func routerFilter() []*hcmv3.HttpFilter {
	a, err := anypb.New(&routerv3.Router{})
	if err != nil {
		panic(err)
	}
	return []*hcmv3.HttpFilter{{
		Name:       "envoy.filters.http.router",
		ConfigType: &hcmv3.HttpFilter_TypedConfig{TypedConfig: a},
	}}
}

func routeConfig(name, domain string, routes ...*routev3.Route) *routev3.RouteConfiguration {
	return &routev3.RouteConfiguration{
		Name: name,
		VirtualHosts: []*routev3.VirtualHost{{
			Name: domain, Domains: []string{domain}, Routes: routes,
		}},
	}
}

func clusterRoute(cluster string) *routev3.Route {
	return &routev3.Route{
		Match: &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: "/"}},
		Action: &routev3.Route_Route{Route: &routev3.RouteAction{
			ClusterSpecifier: &routev3.RouteAction_Cluster{Cluster: cluster},
		}},
	}
}

func weightedRoute(clusters ...string) *routev3.Route {
	wc := &routev3.WeightedCluster{}
	for _, c := range clusters {
		wc.Clusters = append(wc.Clusters, &routev3.WeightedCluster_ClusterWeight{
			Name: c, Weight: wrapperspb.UInt32(50),
		})
	}
	return &routev3.Route{
		Match: &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: "/"}},
		Action: &routev3.Route_Route{Route: &routev3.RouteAction{
			ClusterSpecifier: &routev3.RouteAction_WeightedClusters{WeightedClusters: wc},
		}},
	}
}

func edsCluster(name, service string) *clusterv3.Cluster {
	return &clusterv3.Cluster{
		Name:                 name,
		ClusterDiscoveryType: &clusterv3.Cluster_Type{Type: clusterv3.Cluster_EDS},
		EdsClusterConfig:     &clusterv3.Cluster_EdsClusterConfig{EdsConfig: xdsSource(), ServiceName: service},
		ConnectTimeout:       durationpb.New(2 * time.Second),
	}
}

func loadAssignment(service string, ips ...string) *endpointv3.ClusterLoadAssignment {
	var lbs []*endpointv3.LbEndpoint
	for _, ip := range ips {
		lbs = append(lbs, &endpointv3.LbEndpoint{HostIdentifier: &endpointv3.LbEndpoint_Endpoint{
			Endpoint: &endpointv3.Endpoint{Address: socketAddress(ip, 8080)},
		}})
	}
	return &endpointv3.ClusterLoadAssignment{
		ClusterName: service,
		Endpoints:   []*endpointv3.LocalityLbEndpoints{{LbEndpoints: lbs, LoadBalancingWeight: wrapperspb.UInt32(1)}},
	}
}

// tlsSecret holds a real self-signed certificate (testdata/tls.crt, CN
// www.example.com, 100 years) so the golden bootstrap runs under Envoy.
func tlsSecret(t testing.TB, name string) *tlsv3.Secret {
	t.Helper()
	cert, err := os.ReadFile("testdata/tls.crt")
	if err != nil {
		t.Fatal(err)
	}
	key, err := os.ReadFile("testdata/tls.key")
	if err != nil {
		t.Fatal(err)
	}
	return &tlsv3.Secret{
		Name: name,
		Type: &tlsv3.Secret_TlsCertificate{TlsCertificate: &tlsv3.TlsCertificate{
			CertificateChain: &corev3.DataSource{Specifier: &corev3.DataSource_InlineBytes{InlineBytes: cert}},
			PrivateKey:       &corev3.DataSource{Specifier: &corev3.DataSource_InlineBytes{InlineBytes: key}},
		}},
	}
}

// largeResources is n EDS clusters, each with a two-endpoint assignment and
// a virtual host routing to it in one route configuration, behind the
// fixture's listeners: the size of a big cluster's Contour.
func largeResources(t testing.TB, n int) *translate.Resources {
	r := testResources(t)
	rc := &routev3.RouteConfiguration{Name: "ingress_http"}
	r.Clusters, r.Endpoints = nil, nil
	for i := range n {
		service := fmt.Sprintf("ns%d/svc%d", i%50, i)
		cluster := fmt.Sprintf("%s/80/da39a3ee5e", service)
		r.Clusters = append(r.Clusters, edsCluster(cluster, service))
		r.Endpoints = append(r.Endpoints, loadAssignment(service,
			fmt.Sprintf("10.%d.%d.1", i/256, i%256), fmt.Sprintf("10.%d.%d.2", i/256, i%256)))
		domain := fmt.Sprintf("svc%d.example.com", i)
		rc.VirtualHosts = append(rc.VirtualHosts, &routev3.VirtualHost{
			Name: domain, Domains: []string{domain}, Routes: []*routev3.Route{clusterRoute(cluster)},
		})
	}
	r.Clusters = append(r.Clusters, edsCluster(wwwCluster, "default/www"), edsCluster(emptyCluster, "default/empty"))
	r.Endpoints = append(r.Endpoints, loadAssignment("default/www", "10.0.0.1"))
	r.RouteConfigs = []*routev3.RouteConfiguration{rc, r.RouteConfigs[0]}
	return r
}

// upstreamTLS is a cluster transport socket presenting the client
// certificate in secret, fetched over SDS.
func upstreamTLS(t testing.TB, secret string) *corev3.TransportSocket {
	return &corev3.TransportSocket{
		Name: "envoy.transport_sockets.tls",
		ConfigType: &corev3.TransportSocket_TypedConfig{TypedConfig: prototest.Any(t, &tlsv3.UpstreamTlsContext{
			Sni: "www.example.com",
			CommonTlsContext: &tlsv3.CommonTlsContext{
				TlsCertificateSdsSecretConfigs: []*tlsv3.SdsSecretConfig{{Name: secret, SdsConfig: xdsSource()}},
			},
		})},
	}
}
