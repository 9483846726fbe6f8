package presence

import (
	"strings"
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"
)

func TestReachesAny(t *testing.T) {
	cases := []struct {
		m    proto.Message
		want bool
	}{
		{&anypb.Any{}, true},
		{&clusterv3.Cluster{}, true},          // typed_extension_protocol_options
		{&routev3.RouteMatch{}, true},         // path_match_policy
		{&corev3.SocketAddress{}, false},      // strings, numbers, enums
		{&structpb.Struct{}, false},           // recursive, no Any
		{&typev3.Percent{}, false},            // a double
		{&routev3.RouteConfiguration{}, true}, // typed_per_filter_config
		{&corev3.HeaderValueOption{}, false},  // header and enums
	}
	for _, c := range cases {
		if got := reachesAny(c.m.ProtoReflect().Descriptor()); got != c.want {
			t.Errorf("reachesAny(%T) = %v, want %v", c.m, got, c.want)
		}
	}
}

// TestFieldsToEnter: a walk enters, in declaration order, the fields that can
// hold its targets, or with none every message and map field.
func TestFieldsToEnter(t *testing.T) {
	names := func(m proto.Message, targets *Targets) []string {
		p := For(m.ProtoReflect())
		var out []string
		for _, i := range p.FieldsToEnter(targets) {
			out = append(out, string(p.Fields[i].FD.Name()))
		}
		return out
	}
	sameNames := func(what string, got, want []string) {
		t.Helper()
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: entered %v, want %v", what, got, want)
		}
	}
	// A header: a HeaderValue and an enum; no Any below.
	sameNames("HeaderValueOption, Anys", names(&corev3.HeaderValueOption{}, AnyTargets), nil)
	sameNames("HeaderValueOption, all", names(&corev3.HeaderValueOption{}, nil), []string{"header", "append"})
	// checks are some of the targets of render's reference check. A
	// weighted cluster's entries are one; its other message fields
	// (total_weight) hold none.
	checks := NewTargets(&clusterv3.Cluster{}, &routev3.RouteAction{}, &routev3.WeightedCluster_ClusterWeight{}, &corev3.ConfigSource{})
	sameNames("WeightedCluster, checks", names(&routev3.WeightedCluster{}, checks), []string{"clusters"})

	// Every field entered can hold a target, and every field left out
	// cannot, whatever the message.
	for _, m := range []proto.Message{&routev3.Route{}, &routev3.RouteAction{}, &clusterv3.Cluster{}} {
		p := For(m.ProtoReflect())
		entered := map[int]bool{}
		for _, i := range p.FieldsToEnter(checks) {
			entered[i] = true
		}
		for i := range p.Fields {
			if want := checks.reachesField(p.Fields[i].FD); entered[i] != want {
				t.Errorf("%T.%s: entered %v, can reach a target %v", m, p.Fields[i].FD.Name(), entered[i], want)
			}
		}
	}
}
