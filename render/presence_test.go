package render

import (
	"bytes"
	"math"
	"reflect"
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/contourc/contourc/internal/prototest"
	"github.com/contourc/contourc/render/internal/presence"
)

// samePresence fails unless the presence plan agrees with Message.Has on
// every field of every message inside m, Any contents included.
func samePresence(t *testing.T, m proto.Message) {
	t.Helper()
	var check func(m protoreflect.Message)
	check = func(m protoreflect.Message) {
		if a, ok := m.Interface().(*anypb.Any); ok {
			if inner, err := a.UnmarshalNew(); err == nil {
				check(inner.ProtoReflect())
			}
		}
		p := presence.For(m)
		base := p.Base(m)
		if p.Direct {
			if want := reflect.ValueOf(m.Interface()).UnsafePointer(); base != want {
				t.Errorf("%s: the plan's base is %p, the message is at %p", m.Descriptor().FullName(), base, want)
			}
		}
		for i := range p.Fields {
			f := &p.Fields[i]
			if got, want := p.Has(m, base, i), m.Has(f.FD); got != want {
				t.Errorf("%s: plan says set=%v, Has says %v", f.FD.FullName(), got, want)
			}
			if m.Has(f.FD) && !sameValue(p.Get(m, base, i), m.Get(f.FD), f.FD) {
				t.Errorf("%s: plan reads %v, Get %v", f.FD.FullName(), p.Get(m, base, i), m.Get(f.FD))
			}
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsList() && fd.Message() != nil:
				for i := range v.List().Len() {
					check(v.List().Get(i).Message())
				}
			case fd.IsMap() && fd.MapValue().Message() != nil:
				v.Map().Range(func(_ protoreflect.MapKey, v protoreflect.Value) bool {
					check(v.Message())
					return true
				})
			case !fd.IsList() && !fd.IsMap() && fd.Message() != nil:
				check(v.Message())
			}
			return true
		})
	}
	check(m.ProtoReflect())
}

// sameValue compares two values of field fd: messages, lists and maps by
// identity (both must be views of the same Go value), scalars by value.
func sameValue(a, b protoreflect.Value, fd protoreflect.FieldDescriptor) bool {
	switch {
	case fd.IsList():
		if a.List().Len() != b.List().Len() {
			return false
		}
		for i := range a.List().Len() {
			x, y := a.List().Get(i), b.List().Get(i)
			if fd.Message() != nil && x.Message().Interface() != y.Message().Interface() ||
				fd.Kind() == protoreflect.BytesKind && !bytes.Equal(x.Bytes(), y.Bytes()) ||
				fd.Message() == nil && fd.Kind() != protoreflect.BytesKind && x.Interface() != y.Interface() {
				return false
			}
		}
		return true
	case fd.IsMap():
		return a.Map().Len() == b.Map().Len()
	case fd.Message() != nil:
		return a.Message().Interface() == b.Message().Interface()
	case fd.Kind() == protoreflect.BytesKind:
		return bytes.Equal(a.Bytes(), b.Bytes())
	}
	return a.Interface() == b.Interface()
}

// TestPresenceEdges covers the values where "zero" and "unset" part ways.
func TestPresenceEdges(t *testing.T) {
	cases := map[string]proto.Message{
		"empty":                      &clusterv3.Cluster{},
		"nil pointer":                (*clusterv3.Cluster)(nil),
		"oneof holding a zero enum":  &clusterv3.Cluster{ClusterDiscoveryType: &clusterv3.Cluster_Type{Type: clusterv3.Cluster_STATIC}},
		"oneof holding a nil msg":    &clusterv3.Cluster{ClusterDiscoveryType: &clusterv3.Cluster_ClusterType{}},
		"oneof holding empty string": &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: ""}},
		"negative zero double":       &typev3.Percent{Value: math.Copysign(0, -1)},
		"zero double":                &typev3.Percent{Value: 0},
		"bool":                       &routev3.RouteMatch{CaseSensitive: wrapperspb.Bool(false)},
		"empty non-nil list":         &routev3.VirtualHost{Domains: []string{}},
		"list":                       &routev3.VirtualHost{Name: "a", Domains: []string{"x"}},
		"empty non-nil map":          &routev3.Route{TypedPerFilterConfig: map[string]*anypb.Any{}},
		"map":                        &routev3.Route{TypedPerFilterConfig: map[string]*anypb.Any{"a": {}}},
		"enum":                       &clusterv3.Cluster{LbPolicy: clusterv3.Cluster_RING_HASH},
		"uint32 and int64":           &corev3.SocketOption{Level: 1, Name: 2, Value: &corev3.SocketOption_IntValue{IntValue: 0}},
		"bytes":                      &corev3.DataSource{Specifier: &corev3.DataSource_InlineBytes{InlineBytes: nil}},
		"struct null value":          &structpb.Value{Kind: &structpb.Value_NullValue{}},
		"packed config":              &clusterv3.Cluster{Name: "c", TypedExtensionProtocolOptions: map[string]*anypb.Any{"x": prototest.Any(t, &typev3.Percent{Value: 1})}},
	}
	for name, m := range cases {
		t.Run(name, func(t *testing.T) { samePresence(t, m) })
	}
}

// TestPresenceFixtures compares the plan with Has on every resource and the
// bootstrap of the handmade fixtures.
func TestPresenceFixtures(t *testing.T) {
	r := testResources(t)
	for _, s := range typeSections(r) {
		for _, m := range s.items {
			samePresence(t, m)
		}
	}
	b, err := BuildBootstrap(r, BootstrapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	samePresence(t, b)
}
