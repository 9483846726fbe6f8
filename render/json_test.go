package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/contourc/contourc/translate"
)

func renderJSON(t testing.TB, r *translate.Resources) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := JSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestJSONGolden(t *testing.T) {
	checkGolden(t, "resources.json.golden", renderJSON(t, testResources(t)))
}

func TestJSONStable(t *testing.T) {
	first := renderJSON(t, testResources(t))
	for range 5 {
		if got := renderJSON(t, testResources(t)); !bytes.Equal(got, first) {
			t.Fatal("JSON output differs between runs")
		}
	}
	// Already in canonical layout: nothing of protojson's whitespace left.
	var again bytes.Buffer
	if err := json.Indent(&again, bytes.TrimSuffix(first, []byte("\n")), "", "  "); err != nil {
		t.Fatal(err)
	}
	again.WriteByte('\n')
	if !bytes.Equal(again.Bytes(), first) {
		t.Error("JSON output is not json.Indent's layout")
	}
}

func TestJSONEmptyHasEveryType(t *testing.T) {
	want := `{
  "type.googleapis.com/envoy.config.cluster.v3.Cluster": [],
  "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment": [],
  "type.googleapis.com/envoy.config.listener.v3.Listener": [],
  "type.googleapis.com/envoy.config.route.v3.RouteConfiguration": [],
  "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret": [],
  "type.googleapis.com/envoy.service.runtime.v3.Runtime": []
}
`
	if got := string(renderJSON(t, &translate.Resources{})); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// The output is sorted by name whatever the input order, stably, and the
// caller's slices are not reordered.
func TestJSONSortsByName(t *testing.T) {
	r := testResources(t)
	slices.Reverse(r.Clusters)
	before := slices.Clone(r.Clusters)
	var doc map[string][]map[string]any
	if err := json.Unmarshal(renderJSON(t, r), &doc); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range doc["type.googleapis.com/envoy.config.cluster.v3.Cluster"] {
		names = append(names, c["name"].(string))
	}
	if want := []string{emptyCluster, wwwCluster}; !slices.Equal(names, want) {
		t.Errorf("clusters in order %q, want %q", names, want)
	}
	if !slices.Equal(r.Clusters, before) {
		t.Error("JSON reordered the caller's slice")
	}

	// Two clusters of one name keep their input order.
	a := &clusterv3.Cluster{Name: "same", AltStatName: "a"}
	b := &clusterv3.Cluster{Name: "same", AltStatName: "b"}
	s := section("cluster", []*clusterv3.Cluster{a, b}, (*clusterv3.Cluster).GetName)
	if !proto.Equal(s.items[0], a) || !proto.Equal(s.items[1], b) {
		t.Error("sort is not stable")
	}
}

// Field names are the proto ones (snake_case), as in Envoy's docs.
func TestJSONProtoNames(t *testing.T) {
	out := string(renderJSON(t, testResources(t)))
	for _, want := range []string{`"cluster_name": "default/www"`, `"eds_cluster_config"`, `"route_config_name"`} {
		if !bytes.Contains([]byte(out), []byte(want)) {
			t.Errorf("output lacks %s", want)
		}
	}
}

func BenchmarkJSON(b *testing.B) {
	r := largeResources(b, 1000)
	var buf bytes.Buffer
	b.ResetTimer()
	for b.Loop() {
		buf.Reset()
		if err := JSON(&buf, r); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}

func BenchmarkJSON5000(b *testing.B) {
	r := largeResources(b, 5000)
	var buf bytes.Buffer
	b.ResetTimer()
	for b.Loop() {
		buf.Reset()
		if err := JSON(&buf, r); err != nil {
			b.Fatal(err)
		}
	}
}

// A resource's long list is written as the pieces it was printed in; the
// bytes are those of the list printed whole, also when the resource is
// left to protojson after some pieces were already cut.
func TestJSONSegmentsMatchJoined(t *testing.T) {
	r := largeResources(t, 2*minSplitList+5)
	fallback := proto.Clone(r.RouteConfigs[0]).(*routev3.RouteConfiguration)
	fallback.Name = "zz-fallback"
	// An Any of a well-known type is printed by protojson, resource and all.
	fallback.TypedPerFilterConfig = map[string]*anypb.Any{"x": mustAny(t, &emptypb.Empty{})}
	r.RouteConfigs = append(r.RouteConfigs, fallback)

	var got bytes.Buffer
	if err := JSON(&got, r); err != nil {
		t.Fatal(err)
	}
	sections := typeSections(r)
	docs, err := indentedEncoder(elementPrefix).marshalAll(sections, false)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	bw := bufio.NewWriter(&want)
	writeJSON(bw, sections, docs)
	bw.Flush()
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Error("the segmented output differs from the joined one")
	}
	// The fallback resource is laid out as protojson's, indented.
	js, err := protoJSON.Marshal(fallback)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(got.Bytes(), appendIndented(nil, js, elementPrefix)) {
		t.Error("the resource left to protojson is not printed as protojson prints it")
	}
}
