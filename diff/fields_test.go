package diff

import (
	"reflect"
	"testing"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

func weighted(ws ...any) *routev3.Route {
	var cs []*routev3.WeightedCluster_ClusterWeight
	for i := 0; i < len(ws); i += 2 {
		cs = append(cs, &routev3.WeightedCluster_ClusterWeight{Name: ws[i].(string), Weight: wrapperspb.UInt32(uint32(ws[i+1].(int)))})
	}
	return &routev3.Route{Action: &routev3.Route_Route{Route: &routev3.RouteAction{
		ClusterSpecifier: &routev3.RouteAction_WeightedClusters{WeightedClusters: &routev3.WeightedCluster{Clusters: cs}},
	}}}
}

func mustAny(t *testing.T, m proto.Message) *anypb.Any {
	t.Helper()
	a, err := anypb.New(m)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestFieldDiff(t *testing.T) {
	hcm := func(stat string) *listenerv3.Filter {
		return &listenerv3.Filter{Name: "hcm", ConfigType: &listenerv3.Filter_TypedConfig{TypedConfig: mustAny(t, &hcmv3.HttpConnectionManager{StatPrefix: stat})}}
	}
	tests := []struct {
		name string
		a, b proto.Message
		want []FieldChange
	}{
		{
			name: "equal",
			a:    weighted("a", 1, "b", 2), b: weighted("a", 1, "b", 2),
		},
		{
			name: "named list items are matched by name",
			a:    weighted("a", 90, "b", 10), b: weighted("c", 5, "a", 80, "b", 10),
			want: []FieldChange{
				{Path: "route.weighted_clusters.clusters[a].weight", Old: "90", New: "80"},
				{Path: "route.weighted_clusters.clusters[c]", New: `{"name":"c","weight":5}`},
			},
		},
		{
			name: "order of named items",
			a:    weighted("a", 1, "b", 1), b: weighted("b", 1, "a", 1),
			want: []FieldChange{{Path: "route.weighted_clusters.clusters (order)", Old: "a, b", New: "b, a"}},
		},
		{
			name: "well-known types are leaves; unset differs from zero",
			a:    &clusterv3.Cluster{ConnectTimeout: durationpb.New(2 * time.Second)},
			b:    &clusterv3.Cluster{ConnectTimeout: durationpb.New(5 * time.Second), PerConnectionBufferLimitBytes: wrapperspb.UInt32(0)},
			want: []FieldChange{
				{Path: "connect_timeout", Old: `"2s"`, New: `"5s"`},
				{Path: "per_connection_buffer_limit_bytes", New: "0"},
			},
		},
		{
			name: "scalars without presence show their default; enums by name",
			a:    &clusterv3.Cluster{Name: "x", LbPolicy: clusterv3.Cluster_RANDOM},
			b:    &clusterv3.Cluster{},
			want: []FieldChange{{Path: "name", Old: `"x"`, New: `""`}, {Path: "lb_policy", Old: "RANDOM", New: "ROUND_ROBIN"}},
		},
		{
			name: "unnamed lists of another length: items only one side has",
			a:    &routev3.Route{ResponseHeadersToRemove: []string{"a", "b"}},
			b:    &routev3.Route{ResponseHeadersToRemove: []string{"b", "c", "d"}},
			want: []FieldChange{
				{Path: "response_headers_to_remove", Old: `"a"`},
				{Path: "response_headers_to_remove", New: `"c"`},
				{Path: "response_headers_to_remove", New: `"d"`},
			},
		},
		{
			name: "Any values are compared unpacked",
			a:    &listenerv3.FilterChain{Filters: []*listenerv3.Filter{hcm("a")}},
			b:    &listenerv3.FilterChain{Filters: []*listenerv3.Filter{hcm("b")}},
			want: []FieldChange{{Path: "filters[hcm].typed_config.stat_prefix", Old: `"a"`, New: `"b"`}},
		},
		{
			name: "bytes are never printed",
			a:    &corev3.DataSource{Specifier: &corev3.DataSource_InlineBytes{InlineBytes: []byte("secret one")}},
			b:    &corev3.DataSource{Specifier: &corev3.DataSource_InlineBytes{InlineBytes: []byte("secret two")}},
			want: []FieldChange{{Path: "inline_bytes", Old: "<10 bytes sha256:e2a01de876e8>", New: "<10 bytes sha256:297936d66d3c>"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fieldDiff(tt.a, tt.b); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("fieldDiff() =\n%#v\nwant\n%#v", got, tt.want)
			}
		})
	}
}

func TestFieldDiffStruct(t *testing.T) {
	meta := func(name string, extra bool) *corev3.Metadata {
		fields := map[string]any{"io.projectcontour.kind": "HTTPProxy", "io.projectcontour.name": name}
		if extra {
			fields["nested"] = map[string]any{"n": 1}
		}
		s, err := structpb.NewStruct(fields)
		if err != nil {
			t.Fatal(err)
		}
		return &corev3.Metadata{FilterMetadata: map[string]*structpb.Struct{"f": s}}
	}
	got := fieldDiff(meta("a", false), meta("b", true))
	want := []FieldChange{
		{Path: "filter_metadata[f][io.projectcontour.name]", Old: `"a"`, New: `"b"`},
		{Path: "filter_metadata[f][nested]", New: `{"n":1}`},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fieldDiff() =\n%#v\nwant\n%#v", got, want)
	}
}
