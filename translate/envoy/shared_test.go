package envoy_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate"
	"github.com/contourc/contourc/translate/envoy"
)

// TestSharedMessagesStayAsBuilt, through translate.Translate (an external
// test package, which may import translate): the messages built once and shared by
// every resource that embeds them are never modified by a translation
// (with or without ADS or a Memo) of any golden input.
func TestSharedMessagesStayAsBuilt(t *testing.T) {
	shared := map[string]func() proto.Message{
		"xds config source":          func() proto.Message { return envoy.XdsConfigSourceForTest() },
		"ads config source":          func() proto.Message { return envoy.AdsConfigSourceForTest() },
		"router filter":              func() proto.Message { return envoy.SharedRouterFilterForTest() },
		"misdirected-request filter": func() proto.Message { return envoy.MisdirectedRequestLuaFilterForTest() },
		"authorization disabled":     func() proto.Message { return envoy.AuthzDisabledForTest() },
		"https redirect":             func() proto.Message { return envoy.HttpsRedirectForTest().Redirect },
		"redirect filter config":     func() proto.Message { return envoy.RedirectFilterConfigForTest()["envoy.filters.http.ext_authz"] },
	}
	encode := func(m proto.Message) []byte {
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	before := map[string][]byte{}
	for name, get := range shared {
		before[name] = encode(get())
	}
	inputs, _ := filepath.Glob("../../testdata/golden/*/input")
	if len(inputs) == 0 {
		t.Fatal("no golden inputs")
	}
	memo := translate.NewMemo()
	for _, in := range inputs {
		loaded, err := loader.Load([]string{in}, loader.Options{})
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		for _, opts := range []translate.Options{{}, {ADS: true}, {Memo: memo}} {
			if _, err := translate.Translate(loaded.Objects, opts); err != nil {
				t.Fatalf("%s: %v", in, err)
			}
		}
	}
	for name, get := range shared {
		if !bytes.Equal(encode(get()), before[name]) {
			t.Errorf("the shared %s was modified", name)
		}
	}
}
