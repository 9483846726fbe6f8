package serve

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	resourcev3 "github.com/envoyproxy/go-control-plane/pkg/resource/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/render"
	"github.com/contourc/contourc/translate"
)

// translated runs the pipeline on dir.
func translated(t *testing.T, dir string) *translate.Resources {
	t.Helper()
	return translatedFor(t, dir, ConfigSourceContour)
}

// translatedFor translates dir as serve does for mode: with config sources
// built for ADS when it is ConfigSourceADS.
func translatedFor(t *testing.T, dir string, mode ConfigSource) *translate.Resources {
	t.Helper()
	loaded, err := loader.Load([]string{dir}, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := translate.Translate(loaded.Objects, translate.Options{ADS: mode == ConfigSourceADS})
	if err != nil {
		t.Fatal(err)
	}
	return &res.Resources
}

func TestSnapshotVersionsFollowContent(t *testing.T) {
	dir := copyExamples(t)
	a, err := newSnapshot(translated(t, dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := newSnapshot(translated(t, dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.version != b.version || len(a.version) != versionLength {
		t.Fatalf("versions %q and %q for the same input", a.version, b.version)
	}

	r := translated(t, dir)
	r.Endpoints[0].Endpoints[0].LoadBalancingWeight = wrapperspb.UInt32(7)
	c, err := newSnapshot(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.version == a.version {
		t.Error("a changed endpoint kept the snapshot version")
	}
	for _, typ := range servedTypes {
		same := a.typeVersion(typ) == c.typeVersion(typ)
		if same == (typ == resourcev3.EndpointType) {
			t.Errorf("%s: version %s -> %s", typeLabel(typ), a.typeVersion(typ), c.typeVersion(typ))
		}
	}
	name := r.Endpoints[0].GetClusterName()
	if a.set(resourcev3.EndpointType).hashes[name] == c.set(resourcev3.EndpointType).hashes[name] {
		t.Error("the changed load assignment kept its hash")
	}
}

func TestForConfigSource(t *testing.T) {
	dir := copyExamples(t)
	orig := translated(t, dir)

	contour := translated(t, dir)
	forConfigSource(contour, ConfigSourceContour)
	if !proto.Equal(contour.Listeners[1], orig.Listeners[1]) || len(contour.Listeners) != len(orig.Listeners) {
		t.Error("contour mode changed the resources")
	}

	ads := translatedFor(t, dir, ConfigSourceADS)
	forConfigSource(ads, ConfigSourceADS)
	if len(ads.Listeners) != len(orig.Listeners)-1 {
		t.Errorf("%d listeners, want the %d less envoy-admin", len(ads.Listeners), len(orig.Listeners)-1)
	}
	for _, l := range ads.Listeners {
		if l.GetName() == adminListenerName {
			t.Error("envoy-admin is still served")
		}
		if pointsAtContourAnywhere(l) {
			t.Errorf("listener %s still points at the contour cluster", l.GetName())
		}
	}
	for _, c := range ads.Clusters {
		if pointsAtContourAnywhere(c) {
			t.Errorf("cluster %s still points at the contour cluster", c.GetName())
		}
	}
	for _, c := range orig.Clusters {
		if !pointsAtContourAnywhere(c) && c.GetEdsClusterConfig() != nil {
			t.Errorf("the test is void: cluster %s has no contour config source", c.GetName())
		}
	}
}

func TestParseConfigSource(t *testing.T) {
	for in, want := range map[string]ConfigSource{"ads": ConfigSourceADS, "Contour": ConfigSourceContour} {
		if got, err := ParseConfigSource(in); err != nil || got != want {
			t.Errorf("ParseConfigSource(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseConfigSource("rest"); err == nil {
		t.Error("rest accepted")
	}
}

// A listener with a long list of filter chains is hashed chain by chain:
// the hash still follows every change, in a chain or outside the list, and
// only the content.
func TestContentHashOfLongLists(t *testing.T) {
	listener := func() *listenerv3.Listener {
		l := &listenerv3.Listener{Name: "ingress_https", StatPrefix: "https"}
		for i := range minSplitHash + 3 {
			l.FilterChains = append(l.FilterChains, &listenerv3.FilterChain{Name: fmt.Sprintf("chain-%d", i)})
		}
		return l
	}
	hash := func(l *listenerv3.Listener) [32]byte {
		t.Helper()
		h, err := newHasher(nil).contentHash(l)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	base := hash(listener())
	if hash(listener()) != base {
		t.Fatal("equal listeners hash differently")
	}
	changes := map[string]func(*listenerv3.Listener){
		"a chain":        func(l *listenerv3.Listener) { l.FilterChains[100].Name = "other" },
		"the last chain": func(l *listenerv3.Listener) { l.FilterChains[len(l.FilterChains)-1].Name = "other" },
		"the order": func(l *listenerv3.Listener) {
			l.FilterChains[0], l.FilterChains[1] = l.FilterChains[1], l.FilterChains[0]
		},
		"one chain less":     func(l *listenerv3.Listener) { l.FilterChains = l.FilterChains[1:] },
		"outside the chains": func(l *listenerv3.Listener) { l.StatPrefix = "other" },
	}
	for name, change := range changes {
		l := listener()
		change(l)
		if hash(l) == base {
			t.Errorf("changing %s left the hash alone", name)
		}
	}
	// The listener itself is not changed by hashing.
	l := listener()
	hash(l)
	if !proto.Equal(l, listener()) {
		t.Error("hashing changed the listener")
	}
}

// TestSnapshotReusesSharedHashes builds snapshots of translations that
// share messages (translate's Memo reuses unchanged route tables and filter
// chains) and checks that taking their hashes from the previous snapshot
// gives what hashing them afresh gives.
func TestSnapshotReusesSharedHashes(t *testing.T) {
	dir := copyExamples(t)
	loaded, err := loader.Load([]string{dir}, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	memo := translate.NewMemo()
	translateWithMemo := func() *translate.Resources {
		res, err := translate.Translate(loaded.Objects, translate.Options{ADS: true, Memo: memo})
		if err != nil {
			t.Fatal(err)
		}
		return &res.Resources
	}
	first, err := newSnapshot(translateWithMemo(), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := translateWithMemo()
	shared := 0
	for _, rc := range r.RouteConfigs {
		if _, ok := first.sums(resourcev3.RouteType)[rc]; ok {
			shared++
		}
	}
	if shared == 0 {
		t.Fatal("the second translation shares no route table with the first: the test checks nothing")
	}
	reused, err := newSnapshot(r, first)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := newSnapshot(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if reused.version != fresh.version || reused.version != first.version {
		t.Errorf("versions: first %s, with shared hashes %s, hashed afresh %s", first.version, reused.version, fresh.version)
	}
	for _, typ := range servedTypes {
		if !reflect.DeepEqual(reused.set(typ).hashes, fresh.set(typ).hashes) {
			t.Errorf("%s: hashes differ", typeLabel(typ))
		}
	}
}

// TestPerItemRules checks the rule thinned relies on against the rules
// go-control-plane carries: a route table's virtual hosts and a listener's
// filter chains are checked one by one, a weighted cluster's clusters
// also as a whole (at least one).
func TestPerItemRules(t *testing.T) {
	field := func(m proto.Message, name string) protoreflect.FieldDescriptor {
		fd := m.ProtoReflect().Descriptor().Fields().ByName(protoreflect.Name(name))
		if fd == nil {
			t.Fatalf("%T has no field %s", m, name)
		}
		return fd
	}
	for _, tt := range []struct {
		fd   protoreflect.FieldDescriptor
		want bool
	}{
		{field(&routev3.RouteConfiguration{}, "virtual_hosts"), true},
		{field(&listenerv3.Listener{}, "filter_chains"), true},
		{field(&routev3.WeightedCluster{}, "clusters"), false},
	} {
		if got := perItemRules(tt.fd); got != tt.want {
			t.Errorf("%s: perItemRules %v, want %v", tt.fd.FullName(), got, tt.want)
		}
	}
}

// TestChangedSinceValidatesNewElements shares all but one virtual host of
// a long route table with a validated snapshot: what is left to validate
// holds that one, and its fault is still found.
func TestChangedSinceValidatesNewElements(t *testing.T) {
	var vhosts []*routev3.VirtualHost
	for i := range minSplitHash + 10 {
		name := fmt.Sprintf("host-%d.example.com", i)
		vhosts = append(vhosts, &routev3.VirtualHost{Name: name, Domains: []string{name}})
	}
	served, err := newSnapshot(&translate.Resources{RouteConfigs: []*routev3.RouteConfiguration{{Name: "ingress_http", VirtualHosts: vhosts}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	broken := &routev3.VirtualHost{Name: "", Domains: []string{"broken.example.com"}} // a name is required
	table := &routev3.RouteConfiguration{Name: "ingress_http", VirtualHosts: append(slices.Clone(vhosts), broken), IgnorePortInHostMatching: true}
	next, err := newSnapshot(&translate.Resources{RouteConfigs: []*routev3.RouteConfiguration{table}}, served)
	if err != nil {
		t.Fatal(err)
	}
	left := next.changedSince(served).RouteConfigs
	if len(left) != 1 || len(left[0].GetVirtualHosts()) != 1 || left[0].GetVirtualHosts()[0] != broken {
		t.Fatalf("left to validate: %v", left)
	}
	if !left[0].GetIgnorePortInHostMatching() || left[0].GetName() != "ingress_http" {
		t.Error("the thinned route table lost its other fields")
	}
	if len(table.GetVirtualHosts()) != len(vhosts)+1 {
		t.Error("thinning changed the route table itself")
	}
	if err := render.Validate(next.changedSince(served)); err == nil || !strings.Contains(err.Error(), "ingress_http") {
		t.Errorf("validating what is left: %v, want the broken virtual host's error", err)
	}
}

// A resource hashed element by element and shared whole with the next
// snapshot hands its elements' hashes (and a route table's encodings) on
// too, so that a snapshot after that one, sharing only elements, finds
// them.
func TestSnapshotCarriesElementHashes(t *testing.T) {
	l := &listenerv3.Listener{Name: "ingress_https"}
	rc := &routev3.RouteConfiguration{Name: "ingress_http"}
	for i := range minSplitHash + 3 {
		l.FilterChains = append(l.FilterChains, &listenerv3.FilterChain{Name: fmt.Sprintf("chain-%d", i)})
		rc.VirtualHosts = append(rc.VirtualHosts, &routev3.VirtualHost{Name: fmt.Sprintf("host-%d", i), Domains: []string{"*"}})
	}
	r := &translate.Resources{Listeners: []*listenerv3.Listener{l}, RouteConfigs: []*routev3.RouteConfiguration{rc}}
	first, err := newSnapshot(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Another resource of each type, so that the types are hashed again,
	// sharing the long ones.
	r2 := &translate.Resources{
		Listeners:    []*listenerv3.Listener{l, {Name: "other"}},
		RouteConfigs: []*routev3.RouteConfiguration{rc, {Name: "other"}},
	}
	second, err := newSnapshot(r2, first)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range l.FilterChains {
		if _, ok := second.sums(resourcev3.ListenerType)[c]; !ok {
			t.Fatalf("filter chain %s: no hash handed on", c.Name)
		}
	}
	for _, vh := range rc.VirtualHosts {
		if _, ok := second.set(resourcev3.RouteType).wire[vh]; !ok {
			t.Fatalf("virtual host %s: no encoding handed on", vh.Name)
		}
	}
}

// A type whose resources are the very messages of the previous snapshot
// keeps that snapshot's set whole; another is hashed again. Either way the
// versions are those of hashing afresh.
func TestSnapshotKeepsUnchangedTypes(t *testing.T) {
	c := &clusterv3.Cluster{Name: "a"}
	rc := &routev3.RouteConfiguration{Name: "ingress_http"}
	first, err := newSnapshot(&translate.Resources{Clusters: []*clusterv3.Cluster{c}, RouteConfigs: []*routev3.RouteConfiguration{rc}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	changed := &routev3.RouteConfiguration{Name: "ingress_http", IgnorePortInHostMatching: true}
	r := &translate.Resources{Clusters: []*clusterv3.Cluster{c}, RouteConfigs: []*routev3.RouteConfiguration{changed}}
	second, err := newSnapshot(r, first)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := newSnapshot(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if second.version != fresh.version {
		t.Errorf("version %s, hashed afresh %s", second.version, fresh.version)
	}
	if reflect.ValueOf(second.sums(resourcev3.ClusterType)).Pointer() != reflect.ValueOf(first.sums(resourcev3.ClusterType)).Pointer() {
		t.Error("the unchanged clusters were hashed again")
	}
	if _, ok := second.sums(resourcev3.RouteType)[changed]; !ok {
		t.Error("the changed route table was not hashed")
	}
	if second.set(resourcev3.RouteType).version == first.set(resourcev3.RouteType).version {
		t.Error("the changed route table kept its version")
	}
}
