package envoy_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate"
	"github.com/contourc/contourc/translate/envoy"
)

// TestUnpackedMatchesBytes translates every golden input without a Memo
// and checks that every filter chain's connection manager and TLS context
// are remembered, each as exactly the message its Any's bytes encode, and
// that those bytes are the message's deterministic encoding (the
// connection managers are packed in parts, see hcmPacker); with a Memo
// nothing is remembered.
func TestUnpackedMatchesBytes(t *testing.T) {
	inputs, _ := filepath.Glob("../../testdata/golden/*/input")
	if len(inputs) == 0 {
		t.Fatal("no golden inputs")
	}
	remembered := 0
	for _, in := range inputs {
		loaded, err := loader.Load([]string{in}, loader.Options{})
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		res, err := translate.Translate(loaded.Objects, translate.Options{})
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		u := res.Resources.Unpacked
		if u == nil {
			t.Fatalf("%s: a translation without a Memo remembers nothing", in)
		}
		for _, l := range res.Resources.Listeners {
			for _, fc := range l.GetFilterChains() {
				anys := []*anypb.Any{fc.GetTransportSocket().GetTypedConfig()}
				for _, f := range fc.GetFilters() {
					if f.GetName() == envoy.HCMFilterNameForTest {
						anys = append(anys, f.GetTypedConfig())
					}
				}
				for _, a := range anys {
					if a == nil || l.GetName() == "envoy-admin" || l.GetName() == "stats-health" {
						continue // the static listeners are built apart
					}
					got := u.Get(a)
					if got == nil {
						t.Errorf("%s: %s chain %q: %s not remembered", in, l.GetName(), fc.GetName(), a.GetTypeUrl())
						continue
					}
					remembered++
					want, err := a.UnmarshalNew()
					if err != nil {
						t.Fatal(err)
					}
					if !proto.Equal(got, want) {
						t.Errorf("%s: %s chain %q: remembered %s differs from its bytes", in, l.GetName(), fc.GetName(), a.GetTypeUrl())
					}
					if canonical := envoy.MustAnyForTest(got); !bytes.Equal(a.GetValue(), canonical.GetValue()) || a.GetTypeUrl() != canonical.GetTypeUrl() {
						t.Errorf("%s: %s chain %q: %s is not packed as marshalling it whole packs it", in, l.GetName(), fc.GetName(), a.GetTypeUrl())
					}
				}
			}
		}
		withMemo, err := translate.Translate(loaded.Objects, translate.Options{Memo: translate.NewMemo()})
		if err != nil {
			t.Fatal(err)
		}
		if withMemo.Resources.Unpacked != nil {
			t.Errorf("%s: a translation with a Memo remembers its typed configs", in)
		}
	}
	if remembered == 0 {
		t.Error("no typed config remembered in any golden input")
	}
}
