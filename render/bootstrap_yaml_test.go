package render

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	bootstrapv3 "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/contourc/contourc/internal/prototest"
	"github.com/contourc/contourc/render/internal/jsontext"
	"github.com/contourc/contourc/render/internal/protojson"
	"github.com/contourc/contourc/render/internal/protowalk"
	"github.com/contourc/contourc/translate"
)

// singlePassYAML is the bootstrap printed in one pass, the reference the
// parallel printing must match byte for byte.
func singlePassYAML(t *testing.T, b *bootstrapv3.Bootstrap) []byte {
	t.Helper()
	j, err := protojson.Compact().Marshal(nil, b)
	if err != nil {
		t.Fatal(err)
	}
	y, err := jsontext.ToYAML(j)
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte(bootstrapHeader), y...)
}

func sameAsSinglePass(t *testing.T, b *bootstrapv3.Bootstrap) {
	t.Helper()
	var got []byte
	err := writeBootstrapYAML(b, staticPrint{}, func(segment []byte) error {
		got = append(got, segment...)
		return nil
	}, true)
	if err != nil {
		t.Fatal(err)
	}
	if want := singlePassYAML(t, b); !bytes.Equal(got, want) {
		t.Errorf("parallel YAML differs from the single pass:\n got %.600s\nwant %.600s", got, want)
	}
}

// renderedAsSinglePass fails unless Bootstrap and BootstrapStream, which
// print with what the checks decoded, write what the single pass prints of
// the bootstrap built anew, and leave r as it was, though the bootstraps
// they print share its messages.
func renderedAsSinglePass(t *testing.T, r *translate.Resources) {
	t.Helper()
	before := cloneResources(r)
	b, err := BuildBootstrap(r, BootstrapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := singlePassYAML(t, b)
	for name, write := range map[string]func(io.Writer, *translate.Resources) error{"Bootstrap": Bootstrap, "BootstrapStream": BootstrapStream} {
		var got bytes.Buffer
		if err := write(&got, r); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s differs from the single pass:\n got %.600s\nwant %.600s", name, got.Bytes(), want)
		}
		sameResources(t, r, before)
	}
}

func TestBootstrapYAMLMatchesSinglePass(t *testing.T) {
	renderedAsSinglePass(t, testResources(t))
	b, err := BuildBootstrap(testResources(t), BootstrapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sameAsSinglePass(t, b)

	// The shapes the splice must handle: no node, no static resources,
	// empty static resources, nothing at all.
	admin := AdminInterface(socketAddress("127.0.0.1", 9001))
	for name, b := range map[string]*bootstrapv3.Bootstrap{
		"no node":                {StaticResources: b.GetStaticResources(), Admin: admin},
		"no static resources":    {Node: &corev3.Node{Id: "x"}, Admin: admin},
		"empty static resources": {Node: &corev3.Node{Id: "x"}, StaticResources: &bootstrapv3.Bootstrap_StaticResources{}, Admin: admin},
		"only clusters":          {StaticResources: &bootstrapv3.Bootstrap_StaticResources{Clusters: b.GetStaticResources().GetClusters()}},
		"empty":                  {},
	} {
		t.Run(name, func(t *testing.T) { sameAsSinglePass(t, b) })
	}
}

// A listener with enough filter chains to be printed in pieces comes out
// as the single pass prints it.
func TestBootstrapYAMLSplicesLongListeners(t *testing.T) {
	r := testResources(t)
	l := r.Listeners[1]
	chain := l.FilterChains[0]
	for i := range protojson.MinSplitList + 7 {
		fc := proto.Clone(chain).(*listenerv3.FilterChain)
		fc.FilterChainMatch = &listenerv3.FilterChainMatch{ServerNames: []string{fmt.Sprintf("host-%d.example.com", i)}}
		l.FilterChains = append(l.FilterChains, fc)
	}
	b, err := BuildBootstrap(r, BootstrapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sameAsSinglePass(t, b)
	renderedAsSinglePass(t, r)
}

// TestBootstrapYAMLMatchesSinglePassOnCorpus does the same for the
// bootstraps of the shared parity cases, when present.
func TestBootstrapYAMLMatchesSinglePassOnCorpus(t *testing.T) {
	eachCorpusCase(t, func(name string, r *translate.Resources) {
		b, err := BuildBootstrap(r, BootstrapOptions{})
		if err != nil {
			return // a bootstrap contourc refuses has no YAML
		}
		t.Run(name, func(t *testing.T) {
			sameAsSinglePass(t, b)
			renderedAsSinglePass(t, r)
		})
	})
}

// A bootstrap built for printing leaves rewritten typed configs unpacked;
// packed makes it the bootstrap BuildBootstrap returns, byte for byte,
// and neither changes the resources it shares.
func TestLazyPackingPacksOnDemand(t *testing.T) {
	r := testResources(t)
	want, err := BuildBootstrap(r, BootstrapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	before := cloneResources(r)
	decoded := &protowalk.Decoded{LazyPacking: true}
	got, _, err := buildBootstrap(r, BootstrapOptions{}.withDefaults(), decoded)
	if err != nil {
		t.Fatal(err)
	}
	if proto.Equal(got, want) {
		t.Fatal("no typed config was left unpacked: the test checks nothing")
	}
	packed, err := decoded.Packed(got)
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(packed, want) {
		t.Error("packed, the bootstrap differs from BuildBootstrap's")
	}
	sameResources(t, r, before)
}

// A listener the fast encoder leaves to protojson (a well-known type in a
// typed config) is printed from a copy with its rewritten connection
// manager packed: the listener it shares with the resources keeps its
// bytes. (internal/protojson's TestFallbackOnWellKnownAny checks that
// such a listener is left to protojson.)
func TestBootstrapFallbackPacksACopy(t *testing.T) {
	r := testResources(t)
	l := r.Listeners[1] // ingress_http, its routes inlined by RDS name
	l.ListenerFilters = []*listenerv3.ListenerFilter{{
		Name:       "x-empty",
		ConfigType: &listenerv3.ListenerFilter_TypedConfig{TypedConfig: prototest.Any(t, &emptypb.Empty{})},
	}}
	if _, err := protojson.Compact().Marshal(nil, l); err != nil {
		t.Fatal(err)
	}
	renderedAsSinglePass(t, r)
}
