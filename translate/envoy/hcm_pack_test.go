package envoy

import (
	"bytes"
	"slices"
	"testing"

	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/contourc/contourc/translate/config"
	"github.com/contourc/contourc/translate/dag"
)

// TestHCMPackerMatchesWholeMarshal: managers a packer builds are the
// managers built anew, packed byte for byte as marshalling them whole
// packs them, for each variant, the first manager of a variant and later
// ones; later ones share the first's messages and lists. The variants the
// packer cannot key (extra filters, forwarded client certificates, other
// settings) are built and marshalled whole.
func TestHCMPackerMatchesWholeMarshal(t *testing.T) {
	s := config.Defaults()
	other := config.Defaults()
	other.MergeSlashes = false
	p := newHCMPacker(s)
	variants := map[string]hcmOptions{
		"secure":              {secure: true, settings: s},
		"plain":               {settings: s},
		"fallback":            {fallback: true, settings: s},
		"websockets":          {secure: true, websockets: true, settings: s},
		"extra filters":       {secure: true, settings: s, extraFilters: []*hcmv3.HttpFilter{extAuthzFilter(&dag.ExternalAuthorization{Extension: &dag.ExtensionCluster{Name: "ext"}})}},
		"client certificates": {secure: true, settings: s, forwardClientCert: &dag.ForwardClientCert{Cert: true}},
		"other settings":      {secure: true, settings: other},
	}
	for name, o := range variants {
		var first *hcmv3.HttpConnectionManager
		for _, table := range []string{"https/a.example.com", "https/b.example.com", "https/a-much-longer-name.example.com"} {
			packed, whole := o, o
			packed.packer, packed.unpacked = p, &Unpacked{}
			whole.unpacked = &Unpacked{}
			got := httpConnectionManagerWith("ingress_https", table, packed).GetTypedConfig()
			want := httpConnectionManagerWith("ingress_https", table, whole).GetTypedConfig()
			if got.GetTypeUrl() != want.GetTypeUrl() || !bytes.Equal(got.GetValue(), want.GetValue()) {
				t.Errorf("%s, %s: packed in parts differs from marshalled whole", name, table)
			}
			hcm := packed.unpacked.Get(got).(*hcmv3.HttpConnectionManager)
			if !proto.Equal(hcm, whole.unpacked.Get(want)) {
				t.Errorf("%s, %s: the manager differs from one built anew", name, table)
			}
			if first == nil {
				first = hcm
			} else if _, keyed := p.variants[hcmVariant{"ingress_https", o.secure, o.fallback, o.websockets}]; keyed && o.settings == s && o.extraFilters == nil && o.forwardClientCert == nil &&
				(&hcm.HttpFilters[0] != &first.HttpFilters[0] || hcm.CommonHttpProtocolOptions != first.CommonHttpProtocolOptions) {
				t.Errorf("%s, %s: a later manager does not share the first one's fields", name, table)
			}
		}
	}
	if len(p.variants) != 4 {
		t.Errorf("%d variants split, want 4 (the keyed ones)", len(p.variants))
	}
}

func TestFieldSpan(t *testing.T) {
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, 300)
	at := len(b)
	b = protowire.AppendTag(b, 3, protowire.BytesType)
	b = protowire.AppendString(b, "rds")
	end := len(b)
	b = protowire.AppendTag(b, 5, protowire.BytesType)
	b = protowire.AppendString(b, "filters")
	twice := protowire.AppendString(protowire.AppendTag(slices.Clone(b), 3, protowire.BytesType), "again")
	for _, tc := range []struct {
		name       string
		b          []byte
		n          protowire.Number
		start, end int
		found      bool
	}{
		{"in the middle", b, 3, at, end, true},
		{"first", b, 1, 0, at, true},
		{"absent", b, 4, 0, 0, false},
		{"twice", twice, 3, 0, 0, false},
		{"truncated", b[:end-1], 3, 0, 0, false},
	} {
		start, end, found := fieldSpan(tc.b, tc.n)
		if start != tc.start || end != tc.end || found != tc.found {
			t.Errorf("%s: fieldSpan = %d, %d, %v; want %d, %d, %v", tc.name, start, end, found, tc.start, tc.end, tc.found)
		}
	}
}
