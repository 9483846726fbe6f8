package render

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	bootstrapv3 "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	extauthzv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ext_authz/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"sigs.k8s.io/yaml"

	"github.com/contourc/contourc/internal/prototest"
	"github.com/contourc/contourc/loader"
	fastjson "github.com/contourc/contourc/render/internal/protojson"
	"github.com/contourc/contourc/render/internal/protowalk"
	"github.com/contourc/contourc/translate"
)

func renderBootstrap(t testing.TB, r *translate.Resources) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Bootstrap(&buf, r); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// parseBootstrap reads a bootstrap file back the way Envoy does: YAML to
// JSON to proto.
func parseBootstrap(t testing.TB, y []byte) *bootstrapv3.Bootstrap {
	t.Helper()
	j, err := yaml.YAMLToJSON(y)
	if err != nil {
		t.Fatal(err)
	}
	b := &bootstrapv3.Bootstrap{}
	if err := protojson.Unmarshal(j, b); err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBootstrapGolden(t *testing.T) {
	checkGolden(t, "bootstrap.yaml.golden", renderBootstrap(t, testResources(t)))
}

func TestBootstrapStable(t *testing.T) {
	first := renderBootstrap(t, testResources(t))
	for range 5 {
		if got := renderBootstrap(t, testResources(t)); !bytes.Equal(got, first) {
			t.Fatal("bootstrap output differs between runs")
		}
	}
}

// The written file reads back (as Envoy reads it: YAML to JSON to proto) as
// exactly the bootstrap that was built, for the fixture and for a large set.
func TestBootstrapReadsBack(t *testing.T) {
	for name, r := range map[string]*translate.Resources{
		"fixture": testResources(t),
		"large":   largeResources(t, 200),
	} {
		t.Run(name, func(t *testing.T) {
			built, err := BuildBootstrap(r, BootstrapOptions{})
			if err != nil {
				t.Fatal(err)
			}
			read := parseBootstrap(t, renderBootstrap(t, r))
			if a, b := compactJSON(t, built), compactJSON(t, read); a != b {
				t.Errorf("bootstrap read back differs from the one built:\nbuilt %s\nread  %s", a, b)
			}
		})
	}
}

func compactJSON(t *testing.T, m proto.Message) string {
	t.Helper()
	j, err := fastjson.ProtoNames.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, j); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// The written file, read back, is valid, static and self-contained.
func TestBootstrapFileIsStatic(t *testing.T) {
	out := renderBootstrap(t, testResources(t))
	if !bytes.HasPrefix(out, []byte(bootstrapHeader)) {
		t.Error("missing header comment")
	}
	b := parseBootstrap(t, out)
	if err := protowalk.ValidateDeep(b); err != nil {
		t.Errorf("written bootstrap is invalid: %v", err)
	}
	if err := CheckStatic(b); err != nil {
		t.Errorf("written bootstrap is not static: %v", err)
	}
	if err := CheckBootstrapReferences(b); err != nil {
		t.Errorf("written bootstrap has dangling references: %v", err)
	}
	// A check on the text too, independent of the walk: typed configs are
	// printed expanded, so any xDS leftover would show by name.
	for _, word := range []string{"config_source", "sds_config", "eds_cluster_config", "rds:",
		"dynamic_resources", "ads_config", "rtds_layer", "api_config_source"} {
		if bytes.Contains(out, []byte(word)) {
			t.Errorf("bootstrap contains %q", word)
		}
	}
}

func TestBootstrapContent(t *testing.T) {
	b, err := BuildBootstrap(testResources(t), BootstrapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if b.GetNode().GetId() != "contourc" || b.GetNode().GetCluster() != "contourc" {
		t.Errorf("node = %v", b.GetNode())
	}
	admin := b.GetAdmin().GetAddress().GetSocketAddress()
	if admin.GetAddress() != "127.0.0.1" || admin.GetPortValue() != 9001 {
		t.Errorf("admin address = %v", admin)
	}
	sr := b.GetStaticResources()

	if got := names(sr.GetListeners(), (*listenerv3.Listener).GetName); got != "ingress_http ingress_https stats-health" {
		t.Errorf("listeners = %s (envoy-admin must be dropped)", got)
	}
	if got := names(sr.GetClusters(), (*clusterv3.Cluster).GetName); got != emptyCluster+" "+wwwCluster+" envoy-admin" {
		t.Errorf("clusters = %s", got)
	}
	if got := names(sr.GetSecrets(), (*tlsv3.Secret).GetName); got != wwwSecret {
		t.Errorf("secrets = %s", got)
	}

	empty, www, adminCluster := sr.GetClusters()[0], sr.GetClusters()[1], sr.GetClusters()[2]
	if www.GetType() != clusterv3.Cluster_STATIC || www.GetEdsClusterConfig() != nil {
		t.Errorf("EDS cluster not made static: %v", www)
	}
	if la := www.GetLoadAssignment(); la.GetClusterName() != wwwCluster || len(la.GetEndpoints()[0].GetLbEndpoints()) != 2 {
		t.Errorf("www load assignment = %v", la)
	}
	if la := empty.GetLoadAssignment(); la.GetClusterName() != emptyCluster || len(la.GetEndpoints()) != 0 {
		t.Errorf("cluster with no endpoints got load assignment %v", la)
	}
	if a := adminCluster.GetLoadAssignment().GetEndpoints()[0].GetLbEndpoints()[0].GetEndpoint().GetAddress().GetSocketAddress(); a.GetPortValue() != 9001 || adminCluster.GetType() != clusterv3.Cluster_STATIC {
		t.Errorf("envoy-admin cluster = %v", adminCluster)
	}

	hcm := unpackFirstFilter[*hcmv3.HttpConnectionManager](t, sr.GetListeners()[0])
	if hcm.GetRouteConfig().GetName() != "ingress_http" {
		t.Errorf("ingress_http HCM route config = %v", hcm.GetRouteConfig())
	}
	tls := unpack[*tlsv3.DownstreamTlsContext](t, sr.GetListeners()[1].GetFilterChains()[0].GetTransportSocket().GetTypedConfig())
	ref := tls.GetCommonTlsContext().GetTlsCertificateSdsSecretConfigs()[0]
	if ref.GetName() != wwwSecret || ref.GetSdsConfig() != nil {
		t.Errorf("secret reference = %v", ref)
	}

	layers := b.GetLayeredRuntime().GetLayers()
	if len(layers) != 2 || layers[0].GetName() != "dynamic" || layers[1].GetAdminLayer() == nil {
		t.Fatalf("runtime layers = %v", layers)
	}
	if v := layers[0].GetStaticLayer().GetFields()["re2.max_program_size.error_level"].GetNumberValue(); v != 1<<20 {
		t.Errorf("runtime value = %v", v)
	}
}

// With the admin interface elsewhere, Contour's envoy-admin listener keeps
// its address and proxies to it.
func TestBootstrapAdminElsewhere(t *testing.T) {
	b, err := BuildBootstrap(testResources(t), BootstrapOptions{AdminPort: 9901, NodeID: "edge"})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(b.GetStaticResources().GetListeners(), (*listenerv3.Listener).GetName); got != "envoy-admin ingress_http ingress_https stats-health" {
		t.Errorf("listeners = %s", got)
	}
	c := b.GetStaticResources().GetClusters()[2]
	if p := c.GetLoadAssignment().GetEndpoints()[0].GetLbEndpoints()[0].GetEndpoint().GetAddress().GetSocketAddress().GetPortValue(); c.GetName() != "envoy-admin" || p != 9901 {
		t.Errorf("envoy-admin cluster = %v", c)
	}
	if b.GetNode().GetId() != "edge" || b.GetNode().GetCluster() != "contourc" {
		t.Errorf("node = %v", b.GetNode())
	}
}

func TestBootstrapLeavesInputAlone(t *testing.T) {
	r := testResources(t)
	before := cloneResources(r)
	renderBootstrap(t, r)
	sameResources(t, r, before)
}

// A printed bootstrap's filter chains start from the connection managers
// the translation kept unpacked rather than decoding them: each is a copy
// of the manager's own fields, its routes inlined, sharing the rest.
func TestBootstrapStartsFromUnpackedManagers(t *testing.T) {
	loaded, err := loader.Load([]string{"../examples"}, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := translate.Translate(loaded.Objects, translate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := &res.Resources
	before := cloneResources(r)
	decoded := &protowalk.Decoded{LazyPacking: true, Unpacked: r.Unpacked}
	if _, _, err := buildBootstrap(r, BootstrapOptions{}.withDefaults(), decoded); err != nil {
		t.Fatal(err)
	}
	managers := 0
	for a, m := range unpackedOf(r) {
		kept, ok := m.(*hcmv3.HttpConnectionManager)
		if !ok {
			continue
		}
		managers++
		got, ok := decoded.Get(a).(*hcmv3.HttpConnectionManager)
		switch {
		case !ok:
			t.Errorf("connection manager %q: the bootstrap holds %T", kept.GetStatPrefix(), decoded.Get(a))
		case got.GetRouteConfig() == nil:
			t.Errorf("connection manager %q: routes not inlined", kept.GetStatPrefix())
		case len(got.GetHttpFilters()) == 0 || got.GetHttpFilters()[0] != kept.GetHttpFilters()[0]:
			t.Errorf("connection manager %q: decoded afresh, not copied from the unpacked one", kept.GetStatPrefix())
		}
	}
	if managers == 0 {
		t.Fatal("no unpacked connection manager: the test checks nothing")
	}
	sameResources(t, r, before)
}

// A printed bootstrap's inlining walks may start from a copy of a
// connection manager's, a cluster's or a load assignment's own fields
// (topCopy) because nothing they rewrite lies below those but through an
// Any, whose content they decode afresh, or a route configuration, which
// they do not enter (inliner.admit).
func TestInliningRewritesNothingBelowTopCopies(t *testing.T) {
	routeConfiguration := (&routev3.RouteConfiguration{}).ProtoReflect().Descriptor().FullName()
	for _, root := range []proto.Message{&hcmv3.HttpConnectionManager{}, &clusterv3.Cluster{}, &endpointv3.ClusterLoadAssignment{}} {
		seen := map[protoreflect.FullName]bool{}
		var find func(md protoreflect.MessageDescriptor, path string)
		find = func(md protoreflect.MessageDescriptor, path string) {
			fds := md.Fields()
			for i := range fds.Len() {
				fd := fds.Get(i)
				at := path + "." + string(fd.Name())
				if fd.IsMap() {
					fd = fd.MapValue()
				}
				sub := fd.Message()
				if sub == nil || sub.FullName() == "google.protobuf.Any" || sub.FullName() == routeConfiguration {
					continue
				}
				if inlineTargets.Names[sub.FullName()] {
					t.Errorf("the inliner rewrites %s at %s", sub.FullName(), at)
				}
				if !seen[sub.FullName()] {
					seen[sub.FullName()] = true
					find(sub, at)
				}
			}
		}
		md := root.ProtoReflect().Descriptor()
		find(md, string(md.Name()))
		if len(seen) < 5 {
			t.Errorf("only %d message types below %s: the test checks nothing", len(seen), md.Name())
		}
	}
}

// Hostname endpoints cannot be in a STATIC cluster; such a cluster resolves
// them instead.
func TestBootstrapHostnameEndpoints(t *testing.T) {
	r := testResources(t)
	r.Endpoints = append(r.Endpoints, loadAssignment("default/empty", "backend.example.com"))
	b, err := BuildBootstrap(r, BootstrapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := b.GetStaticResources().GetClusters()[0]; c.GetType() != clusterv3.Cluster_STRICT_DNS {
		t.Errorf("cluster %s type %v, want STRICT_DNS", c.GetName(), c.GetType())
	}
}

// A bootstrap Envoy would refuse is not written at all, and the error names
// what is wrong.
func TestBootstrapInvalidWritesNothing(t *testing.T) {
	tests := map[string]struct {
		change func(*translate.Resources)
		want   string
	}{
		"invalid cluster": {
			change: func(r *translate.Resources) { r.Clusters[1].ConnectTimeout.Seconds = -1 },
			want:   `cluster "` + wwwCluster + `"`,
		},
		"route to missing cluster": {
			change: func(r *translate.Resources) { r.Clusters = r.Clusters[1:] },
			want:   `listener "ingress_http": ` + `filter_chains[0].filters["envoy.filters.network.http_connection_manager"].typed_config.route_config.virtual_hosts["www.example.com"].routes[0].route.weighted_clusters.clusters["` + emptyCluster + `"]: weighted cluster refers to unknown cluster "` + emptyCluster + `"`,
		},
		"missing secret": {
			change: func(r *translate.Resources) { r.Secrets = nil },
			want:   `unknown secret "` + wwwSecret + `"`,
		},
		"missing route configuration": {
			change: func(r *translate.Resources) { r.RouteConfigs = r.RouteConfigs[1:] },
			want:   `listener "ingress_https": filter_chains[0].filters["envoy.filters.network.http_connection_manager"].typed_config: http_connection_manager "ingress_https": no route configuration named "https/www.example.com"`,
		},
		"invalid typed config": {
			change: func(r *translate.Resources) {
				repack(t, r.Listeners[1].FilterChains[0].Filters[0].GetTypedConfig(), func(hcm *hcmv3.HttpConnectionManager) {
					hcm.StatPrefix = ""
				})
			},
			want: `listener "ingress_http": filter_chains[0].filters["envoy.filters.network.http_connection_manager"].typed_config: invalid HttpConnectionManager.StatPrefix`,
		},
		"reference deep in a typed config": {
			// An HTTP filter's gRPC service, packed in the connection
			// manager, packed in the listener: the pruned walk must
			// still get there.
			change: func(r *translate.Resources) {
				repack(t, r.Listeners[1].FilterChains[0].Filters[0].GetTypedConfig(), func(hcm *hcmv3.HttpConnectionManager) {
					authz := &extauthzv3.ExtAuthz{Services: &extauthzv3.ExtAuthz_GrpcService{GrpcService: &corev3.GrpcService{
						TargetSpecifier: &corev3.GrpcService_EnvoyGrpc_{EnvoyGrpc: &corev3.GrpcService_EnvoyGrpc{ClusterName: "missing-authz"}},
					}}}
					f := &hcmv3.HttpFilter{Name: "envoy.filters.http.ext_authz", ConfigType: &hcmv3.HttpFilter_TypedConfig{TypedConfig: prototest.Any(t, authz)}}
					hcm.HttpFilters = append([]*hcmv3.HttpFilter{f}, hcm.HttpFilters...)
				})
			},
			want: `unknown cluster "missing-authz"`,
		},
		"unknown typed config": {
			change: func(r *translate.Resources) {
				r.Listeners[1].FilterChains[0].Filters[0].GetTypedConfig().TypeUrl = "type.googleapis.com/no.such.Type"
			},
			want: `listener "ingress_http"`,
		},
		// What the bootstrap leaves out is still validated, as
		// BuildBootstrap validates every resource.
		"invalid route configuration no listener uses": {
			change: func(r *translate.Resources) {
				r.RouteConfigs = append(r.RouteConfigs, &routev3.RouteConfiguration{Name: "unused",
					VirtualHosts: []*routev3.VirtualHost{{Name: "", Domains: []string{"x"}}}})
			},
			want: `route configuration "unused"`,
		},
		"invalid load assignment no cluster uses": {
			change: func(r *translate.Resources) {
				r.Endpoints = append(r.Endpoints, &endpointv3.ClusterLoadAssignment{ClusterName: ""})
			},
			want: `cluster load assignment ""`,
		},
		"invalid listener on the admin address": {
			change: func(r *translate.Resources) {
				r.Listeners = append(r.Listeners, &listenerv3.Listener{Name: "on-admin", Address: socketAddress("127.0.0.1", 9001),
					FilterChains: []*listenerv3.FilterChain{{Filters: []*listenerv3.Filter{{Name: ""}}}}})
			},
			want: `listener "on-admin"`,
		},
		"duplicate cluster": {
			change: func(r *translate.Resources) { r.Clusters = append(r.Clusters, r.Clusters[0]) },
			want:   `cluster "` + emptyCluster + `" is defined more than once`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r := testResources(t)
			tc.change(r)
			var buf bytes.Buffer
			err := Bootstrap(&buf, r)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
			if buf.Len() != 0 {
				t.Errorf("wrote %d bytes despite the error", buf.Len())
			}
			// Streamed, part of it may be written, but the error is
			// the same.
			if serr := BootstrapStream(io.Discard, r); serr == nil || serr.Error() != err.Error() {
				t.Errorf("BootstrapStream: error %v, want %v", serr, err)
			}
		})
	}
}

func BenchmarkBootstrap(b *testing.B) {
	r := largeResources(b, 1000)
	var buf bytes.Buffer
	b.ResetTimer()
	for b.Loop() {
		buf.Reset()
		if err := Bootstrap(&buf, r); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}

func names[T any](items []T, name func(T) string) string {
	var s []string
	for _, it := range items {
		s = append(s, name(it))
	}
	return strings.Join(s, " ")
}

func TestBootstrapAdminAddressMustBeIP(t *testing.T) {
	var buf bytes.Buffer
	err := BootstrapWithOptions(&buf, testResources(t), BootstrapOptions{AdminAddress: "localhost"})
	if err == nil || !strings.Contains(err.Error(), `admin address "localhost" is not an IP address`) || buf.Len() != 0 {
		t.Errorf("got %v and %d bytes", err, buf.Len())
	}
}

// No resources still make a bootstrap Envoy runs: admin, runtime, and the
// envoy-admin cluster.
func TestBootstrapEmpty(t *testing.T) {
	for _, r := range []*translate.Resources{{}, nil} {
		b := parseBootstrap(t, renderBootstrap(t, r))
		if got := names(b.GetStaticResources().GetClusters(), (*clusterv3.Cluster).GetName); got != "envoy-admin" {
			t.Errorf("clusters = %s", got)
		}
		if err := protowalk.ValidateDeep(b); err != nil {
			t.Error(err)
		}
	}
	if got := string(renderJSON(t, nil)); !strings.Contains(got, `"type.googleapis.com/envoy.config.cluster.v3.Cluster": []`) {
		t.Errorf("JSON(nil) = %s", got)
	}
	if err := Validate(nil); err != nil {
		t.Error(err)
	}
}
