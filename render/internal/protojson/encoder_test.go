package protojson

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strconv"
	"testing"
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	extauthzv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ext_authz/v3"
	dubbov3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/dubbo_proxy/v3"
	fscachev3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/cache/file_system_http_cache/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/contourc/contourc/internal/prototest"
	"github.com/contourc/contourc/render/internal/jsontext"
)

// sameAsProtojson fails unless the fast encoder prints m as protojson does,
// compact once both are laid out by the indenter, and indented.
func sameAsProtojson(t *testing.T, enc *Encoder, m proto.Message) {
	t.Helper()
	want, wantErr := ProtoNames.Marshal(m)
	got, gotErr := enc.Marshal(nil, m)
	if (wantErr == nil) != (gotErr == nil) || wantErr != nil && wantErr.Error() != gotErr.Error() {
		t.Fatalf("%T: error %v, protojson's %v", m, gotErr, wantErr)
	}
	if wantErr != nil {
		return
	}
	w, g := jsontext.AppendIndented(nil, want, ""), jsontext.AppendIndented(nil, got, "")
	if !bytes.Equal(w, g) {
		t.Fatalf("%T:\n got %s\nwant %s", m, g, w)
	}
	// Printed in the indented layout directly, the same bytes as
	// json.Indent's layout of protojson's output.
	const prefix = "    "
	ind, err := Indented(prefix).Marshal(nil, m)
	if err != nil {
		t.Fatalf("%T: indented: %v", m, err)
	}
	if w := jsontext.AppendIndented(nil, want, prefix); !bytes.Equal(w, ind) {
		t.Fatalf("%T: indented:\n got %s\nwant %s", m, ind, w)
	}
	// A worker's encoder prints messages met before from its table: the
	// same bytes, the second time too, when every message is met again;
	// with one slot, every message and list inside another takes the
	// outer one's slot.
	for _, slots := range []int{sharedSlots, 1} {
		worker := Indented(prefix).ForWorker()
		worker.shared = newSharedJSON(slots)
		for range 2 {
			again, err := worker.Marshal(nil, m)
			if err != nil {
				t.Fatalf("%T: a worker's, %d slots: %v", m, slots, err)
			}
			if !bytes.Equal(again, ind) {
				t.Fatalf("%T: a worker's, %d slots:\n got %s\nwant %s", m, slots, again, ind)
			}
		}
	}
}

func TestFastJSONScalars(t *testing.T) {
	st := prototest.Struct(t, map[string]any{"b": 1.5, "a": "x", "n": nil})
	for name, m := range map[string]proto.Message{
		"double":         &typev3.Percent{Value: 12.5},
		"tiny double":    &typev3.Percent{Value: 1e-7},
		"huge double":    &typev3.Percent{Value: 1e21},
		"negative":       &typev3.Percent{Value: -0.25},
		"NaN":            &typev3.Percent{Value: math.NaN()},
		"infinity":       &typev3.Percent{Value: math.Inf(-1)},
		"float32":        &fscachev3.FileSystemHttpCacheConfig{EvictFraction: 0.1},
		"tiny float32":   &fscachev3.FileSystemHttpCacheConfig{EvictFraction: 1e-9},
		"int64":          &typev3.Int64Range{Start: -5, End: 1 << 62},
		"uint64":         &corev3.RuntimeFeatureFlag{RuntimeKey: "k"},
		"runtime uint64": &corev3.RuntimeUInt32{DefaultValue: 7, RuntimeKey: "k"},
		"escapes":        &corev3.HeaderValue{Key: "x-a", Value: "q\"b\\s\n\t\r\b\f\x01\x1f<>&é\u2028"},
		"invalid utf-8":  &corev3.HeaderValue{Key: "x-a", Value: "\xff"},
		"bytes":          &corev3.DataSource{Specifier: &corev3.DataSource_InlineBytes{InlineBytes: []byte{0, 1, 2, 250}}},
		"empty oneof":    &corev3.DataSource{Specifier: &corev3.DataSource_InlineString{}},
		"enum":           &corev3.SocketAddress{Protocol: corev3.SocketAddress_UDP, Address: "::", PortSpecifier: &corev3.SocketAddress_PortValue{PortValue: 53}},
		"unknown enum":   &corev3.SocketAddress{Protocol: corev3.SocketAddress_Protocol(42)},
		"uint32 map": &dubbov3.MethodMatch{ParamsMatch: map[uint32]*dubbov3.MethodMatch_ParameterMatchSpecifier{
			10: {}, 2: {}, 300: {},
		}},
		"string map and struct":    &corev3.Metadata{FilterMetadata: map[string]*structpb.Struct{"z": st, "a": st, "B": {}}},
		"any of a well-known type": &corev3.TypedExtensionConfig{Name: "x", TypedConfig: prototest.Any(t, st)},
		"any":                      &corev3.TypedExtensionConfig{Name: "x", TypedConfig: prototest.Any(t, &typev3.Percent{Value: 3})},
		"empty any":                &corev3.TypedExtensionConfig{Name: "x", TypedConfig: &anypb.Any{}},
		"zero duration":            &durationpb.Duration{},
		"duration":                 &durationpb.Duration{Seconds: 1, Nanos: 500000000},
		"duration ns":              &durationpb.Duration{Nanos: 1},
		"negative duration":        &durationpb.Duration{Seconds: -1, Nanos: -1000},
		"bad duration":             &durationpb.Duration{Seconds: 1, Nanos: -1},
		"huge duration":            &durationpb.Duration{Seconds: 315576000001},
		"bool wrapper":             wrapperspb.Bool(false),
		"int64 wrapper":            wrapperspb.Int64(-1 << 40),
		"uint64 wrapper":           wrapperspb.UInt64(1 << 63),
		"double wrapper":           wrapperspb.Double(1e-9),
		"float wrapper":            wrapperspb.Float(3.25),
		"bytes wrapper":            wrapperspb.Bytes([]byte("hi")),
		"string wrapper":           wrapperspb.String("a\"b"),
		"nested struct":            prototest.Struct(t, map[string]any{"l": []any{1, "x", true, nil, map[string]any{"k": 2.5}}, "e": map[string]any{}}),
		"NaN value":                structpb.NewNumberValue(math.NaN()),
		"empty value":              &structpb.Value{},
		"empty list":               &structpb.ListValue{},
		"empty":                    &emptypb.Empty{},
		"uint32 wrapper":           wrapperspb.UInt32(7),
		"invalid utf-8 wrapper":    wrapperspb.String("\xff"),
		"struct with a nil value":  &structpb.Struct{Fields: map[string]*structpb.Value{"a": nil}},
		"nil struct value":         &structpb.Value{Kind: &structpb.Value_StructValue{}},
		"nil list value":           &structpb.Value{Kind: &structpb.Value_ListValue{}},
		"list with a nil item":     &structpb.ListValue{Values: []*structpb.Value{nil}},
		"value list with nil item": &structpb.Value{Kind: &structpb.Value_ListValue{ListValue: &structpb.ListValue{Values: []*structpb.Value{structpb.NewBoolValue(true), nil}}}},
		"struct key escapes":       &structpb.Struct{Fields: map[string]*structpb.Value{"a\"b": structpb.NewNullValue(), "\xff": structpb.NewNullValue()}},
		"unknown any":              &corev3.TypedExtensionConfig{Name: "x", TypedConfig: &anypb.Any{TypeUrl: "type.googleapis.com/no.Such"}},
		// The maps and lists the encoder reads from the struct.
		"string to string map":  &extauthzv3.CheckSettings{ContextExtensions: map[string]string{"b": "x", "a": "q\"", "": "e"}},
		"invalid utf-8 map key": &extauthzv3.CheckSettings{ContextExtensions: map[string]string{"\xff": "x"}},
		"any map":               &corev3.Metadata{TypedFilterMetadata: map[string]*anypb.Any{"z": prototest.Any(t, &typev3.Percent{Value: 3}), "a": prototest.Any(t, st)}},
		"any map with a nil":    &corev3.Metadata{TypedFilterMetadata: map[string]*anypb.Any{"a": nil}},
		"struct map with a nil": &corev3.Metadata{FilterMetadata: map[string]*structpb.Struct{"a": nil, "b": st}},
		"many struct map keys":  &corev3.Metadata{FilterMetadata: manyStructs(st, 20)},
		"message list":          &routev3.VirtualHost{Name: "v", Routes: []*routev3.Route{{Name: "a"}, {Name: "b", Metadata: &corev3.Metadata{}}}},
		"message list with nil": &routev3.VirtualHost{Name: "v", Routes: []*routev3.Route{{Name: "a"}, nil}},
	} {
		t.Run(name, func(t *testing.T) { sameAsProtojson(t, Compact(), m) })
	}
}

// manyStructs is a map of n Structs, more keys than the encoder sorts on the
// stack.
func manyStructs(st *structpb.Struct, n int) map[string]*structpb.Struct {
	m := map[string]*structpb.Struct{}
	for i := range n {
		m[string(rune('a'+n-i))] = st
	}
	return m
}

// TestFastJSONCachesAnys: an Any printed once is not kept, a repeated one
// is, and the copy is the same; a changed one is printed afresh.
func TestFastJSONCachesAnys(t *testing.T) {
	enc := Compact()
	a := &corev3.TypedExtensionConfig{Name: "x", TypedConfig: prototest.Any(t, &typev3.Percent{Value: 3})}
	sameAsProtojson(t, enc, a)
	if n := len(enc.anys.m); n != 0 {
		t.Fatalf("%d cached Anys after one print, want 0", n)
	}
	for range 2 {
		sameAsProtojson(t, enc, a)
		if n := len(enc.anys.m); n != 1 {
			t.Fatalf("%d cached Anys, want 1", n)
		}
	}
	sameAsProtojson(t, enc, &corev3.TypedExtensionConfig{Name: "x", TypedConfig: prototest.Any(t, &typev3.Percent{Value: 4})})
}

// A resource left to protojson after pieces of it were passed on gets the
// rest of protojson's output, and an error when what was passed is not
// protojson's start.
func TestSegmentPasserRest(t *testing.T) {
	var passed []byte
	p := &SegmentPasser{Pass: func(s []byte) bool { passed = append(passed, s...); return false }}
	p.add([]byte("{\"a\": "))
	p.add([]byte("1, "))
	if rest, err := p.rest([]byte(`{"a": 1, "b": 2}`)); err != nil || string(passed)+string(rest) != `{"a": 1, "b": 2}` {
		t.Errorf("rest %q, %v", rest, err)
	}
	for _, whole := range []string{`{"a": 2, "b": 2}`, `{"a"`} {
		if _, err := p.rest([]byte(whole)); err == nil {
			t.Errorf("no error for %q after %q was passed", whole, passed)
		}
	}
}

// TestFastJSONSharedMessages: messages, lists and maps several fields
// point to are printed from a worker's table as they would be printed
// anew, at every depth, however many share its slots.
func TestFastJSONSharedMessages(t *testing.T) {
	meta := func(name string) *corev3.Metadata {
		return &corev3.Metadata{FilterMetadata: map[string]*structpb.Struct{
			"envoy.access_loggers.file": prototest.Struct(t, map[string]any{"io.projectcontour.name": name}),
		}}
	}
	common := meta("common")
	redirect := &routev3.Route_Redirect{Redirect: &routev3.RedirectAction{
		SchemeRewriteSpecifier: &routev3.RedirectAction_HttpsRedirect{HttpsRedirect: true},
	}}
	disabled, err := anypb.New(&extauthzv3.ExtAuthzPerRoute{Override: &extauthzv3.ExtAuthzPerRoute_Disabled{Disabled: true}})
	if err != nil {
		t.Fatal(err)
	}
	perFilter := map[string]*anypb.Any{"envoy.filters.http.ext_authz": disabled, "envoy.filters.http.other": disabled}
	vh := &routev3.VirtualHost{Name: "shared", Domains: []string{"*"}, Metadata: common}
	// More distinct shared messages than slots, each met twice in a row,
	// among routes that all share one.
	for i := range 3 * sharedSlots {
		own := meta(strconv.Itoa(i))
		for range 2 {
			vh.Routes = append(vh.Routes, &routev3.Route{
				Match:    &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: "/" + strconv.Itoa(i)}},
				Metadata: own,
				Action:   redirect,
			}, &routev3.Route{
				Match:                &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Path{Path: "/common"}},
				Metadata:             common,
				Action:               redirect,
				TypedPerFilterConfig: perFilter,
			})
		}
	}
	// A shared message holding messages, met several times in a row.
	forward := &routev3.Route_Route{Route: &routev3.RouteAction{
		ClusterSpecifier: &routev3.RouteAction_Cluster{Cluster: "app"},
		RetryPolicy:      &routev3.RetryPolicy{RetryOn: "5xx", NumRetries: wrapperspb.UInt32(3)},
		Timeout:          durationpb.New(30 * time.Second),
	}}
	for i := range 4 {
		vh.Routes = append(vh.Routes, &routev3.Route{
			Match:  &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: "/forward/" + strconv.Itoa(i)}},
			Action: forward,
		})
	}
	sameAsProtojson(t, Compact(), &routev3.RouteConfiguration{Name: "shared", VirtualHosts: []*routev3.VirtualHost{vh, vh}})
}

// A list's pieces are passed on as soon as those before them are printed,
// and none from the first failed one on.
func TestPiecesPassedInOrder(t *testing.T) {
	var got []string
	to := &SegmentPasser{Pass: func(s []byte) bool { got = append(got, string(s)); return false }}
	pieces := [][]byte{[]byte("0"), []byte("1"), []byte("2"), []byte("3")}
	errs := make([]error, len(pieces))
	var pp piecesPassed
	pp.printed(1, pieces, errs, to)
	if len(got) != 0 {
		t.Fatalf("passed %q before piece 0 was printed", got)
	}
	pp.printed(0, pieces, errs, to)
	if !slices.Equal(got, []string{"0", "1"}) || pieces[0] != nil {
		t.Fatalf("passed %q, want 0 1, and dropped", got)
	}
	errs[3] = errors.New("piece 3")
	pp.printed(3, pieces, errs, to)
	pp.printed(2, pieces, errs, to)
	if !slices.Equal(got, []string{"0", "1", "2"}) {
		t.Errorf("passed %q, want 0 1 2 and not the failed piece", got)
	}
}

// A message this encoder leaves to protojson, an Any of a well-known type
// inside, is reported as such rather than printed (render's fallback tests
// rest on it).
func TestFallbackOnWellKnownAny(t *testing.T) {
	l := &listenerv3.Listener{Name: "l", ListenerFilters: []*listenerv3.ListenerFilter{{
		Name:       "x-empty",
		ConfigType: &listenerv3.ListenerFilter_TypedConfig{TypedConfig: prototest.Any(t, &emptypb.Empty{})},
	}}}
	if _, err := Compact().message(nil, l.ProtoReflect(), 0); err != errFallback {
		t.Fatalf("the fast encoder printed the listener itself (%v)", err)
	}
	sameAsProtojson(t, Compact(), l)
}
