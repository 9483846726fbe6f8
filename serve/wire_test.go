package serve

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	cachev3 "github.com/envoyproxy/go-control-plane/pkg/cache/v3"
	resourcev3 "github.com/envoyproxy/go-control-plane/pkg/resource/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/contourc/contourc/translate"
)

// wireTestTable is a route table of n virtual hosts, each with a route
// whose metadata holds a map (deterministic encoding matters), and fields
// after the virtual hosts' field number.
func wireTestTable(n int) *routev3.RouteConfiguration {
	rc := &routev3.RouteConfiguration{
		Name:                     "ingress_http",
		IgnorePortInHostMatching: true,
		RequestHeadersToAdd: []*corev3.HeaderValueOption{{
			Header: &corev3.HeaderValue{Key: "x-request-start", Value: "t=%START_TIME(%s.%3f)%"},
		}},
	}
	for i := range n {
		rc.VirtualHosts = append(rc.VirtualHosts, wireTestHost(fmt.Sprintf("host-%d.example.com", i)))
	}
	return rc
}

func wireTestHost(name string) *routev3.VirtualHost {
	meta, _ := structpb.NewStruct(map[string]any{"kind": "HTTPProxy", "namespace": "default", "name": name})
	return &routev3.VirtualHost{Name: name, Domains: []string{name}, Routes: []*routev3.Route{{
		Match:    &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: "/"}},
		Action:   &routev3.Route_Route{Route: &routev3.RouteAction{ClusterSpecifier: &routev3.RouteAction_Cluster{Cluster: "c"}}},
		Metadata: &corev3.Metadata{FilterMetadata: map[string]*structpb.Struct{"envoy.access_loggers.file": meta}},
	}}}
}

// servedRouteTable is what the xDS cache is given for the route table
// named name in s.
func servedRouteTable(t *testing.T, s *snapshot, name string) (real, served proto.Message) {
	t.Helper()
	set := s.set(resourcev3.RouteType)
	for i, it := range set.items {
		if cachev3.GetResourceName(it) == name {
			return it, set.served[i]
		}
	}
	t.Fatalf("no route table %s", name)
	return nil, nil
}

// checkWireForm marshals served as go-control-plane does and checks that
// it is real's canonical encoding.
func checkWireForm(t *testing.T, real, served proto.Message) {
	t.Helper()
	b, err := cachev3.MarshalResource(served)
	if err != nil {
		t.Fatal(err)
	}
	var got routev3.RouteConfiguration
	if err := proto.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(&got, real) {
		t.Error("the route table served decodes to another route table")
	}
	if canonical, _ := cachev3.MarshalResource(real); !bytes.Equal(canonical, b) {
		t.Errorf("served %d bytes, not the canonical encoding (%d bytes)", len(b), len(canonical))
	}
}

// TestWireFormIsTheSameRouteTable: a long route table is handed to the
// xDS cache in its wire form, which decodes to the same route table, also
// when its virtual hosts are shared with the snapshot before; a short one
// is handed over as it is.
func TestWireFormIsTheSameRouteTable(t *testing.T) {
	long := wireTestTable(minSplitHash + 5)
	short := wireTestTable(3)
	short.Name = "short"
	first, err := newSnapshot(&translate.Resources{RouteConfigs: []*routev3.RouteConfiguration{long, short}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	real, served := servedRouteTable(t, first, "ingress_http")
	if served == real {
		t.Fatal("the long route table is handed over as it is")
	}
	checkWireForm(t, real, served)
	if real, served := servedRouteTable(t, first, "short"); served != real {
		t.Error("the short route table is not handed over as it is")
	}

	// The next reload adds a virtual host and shares the others.
	grown := proto.CloneOf(long)
	grown.VirtualHosts = append(append([]*routev3.VirtualHost{}, long.VirtualHosts...), wireTestHost("new.example.com"))
	next, err := newSnapshot(&translate.Resources{RouteConfigs: []*routev3.RouteConfiguration{grown, short}}, first)
	if err != nil {
		t.Fatal(err)
	}
	real, served = servedRouteTable(t, next, "ingress_http")
	if served == real {
		t.Fatal("the grown route table is handed over as it is")
	}
	checkWireForm(t, real, served)

	// Unchanged, the route table keeps the wire form it had.
	again, err := newSnapshot(&translate.Resources{RouteConfigs: []*routev3.RouteConfiguration{grown, short}}, next)
	if err != nil {
		t.Fatal(err)
	}
	if _, s := servedRouteTable(t, again, "ingress_http"); s != served {
		t.Error("an unchanged route table got a new wire form")
	}
}

// TestServeLongRouteTable serves a route table long enough to be handed
// over in its wire form, and checks that an ADS client receives exactly
// the route table translate built, before and after a host is added.
func TestServeLongRouteTable(t *testing.T) {
	dir := copyExamples(t)
	var many strings.Builder
	for i := range minSplitHash + 10 {
		fmt.Fprintf(&many, "---\n%s", ingress(fmt.Sprintf("host-%d", i), fmt.Sprintf("host-%d.example.com", i)))
	}
	writeFile(t, filepath.Join(dir, "many.yaml"), many.String())
	ts := startServer(t, []string{dir})
	ts.waitReady(t)
	c := newADSClient(t, ts.XDSAddr().String())
	check := func(host string) {
		t.Helper()
		c.waitFor(t, host, func(v *xdsView) bool { return v.hasDomain(host) })
		want := translatedFor(t, dir, ConfigSourceADS)
		var table *routev3.RouteConfiguration
		for _, rc := range want.RouteConfigs {
			if rc.GetName() == "ingress_http" {
				table = rc
			}
		}
		if len(table.GetVirtualHosts()) < minSplitHash {
			t.Fatalf("ingress_http has %d virtual hosts: too few to test the wire form", len(table.GetVirtualHosts()))
		}
		c.inspect(func(v *xdsView) {
			if got := v.state(resourcev3.RouteType).resources["ingress_http"]; !proto.Equal(got, table) {
				t.Error("the client's ingress_http differs from the one translated")
			}
		})
	}
	check("host-0.example.com")
	writeFile(t, filepath.Join(dir, "added.yaml"), ingress("added", "added.example.com"))
	check("added.example.com")
}
