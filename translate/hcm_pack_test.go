package translate

import (
	"bytes"
	"slices"
	"testing"

	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	"google.golang.org/protobuf/encoding/protowire"
)

// TestHCMPackerMatchesWholeMarshal: managers packed in parts are byte for
// byte what marshalling them whole gives, for each variant, for the first
// manager of a variant and for later ones; the variants the packer cannot
// key (extra filters, forwarded client certificates, other settings) are
// marshalled whole too.
func TestHCMPackerMatchesWholeMarshal(t *testing.T) {
	s := defaultSettings()
	other := defaultSettings()
	other.mergeSlashes = false
	p := newHCMPacker(s)
	variants := map[string]hcmOptions{
		"secure":              {secure: true, settings: s},
		"plain":               {settings: s},
		"fallback":            {fallback: true, settings: s},
		"websockets":          {secure: true, websockets: true, settings: s},
		"extra filters":       {secure: true, settings: s, extraFilters: []*hcmv3.HttpFilter{extAuthzFilter(&ExternalAuthorization{Extension: &ExtensionCluster{Name: "ext"}})}},
		"client certificates": {secure: true, settings: s, forwardClientCert: &ForwardClientCert{Cert: true}},
		"other settings":      {secure: true, settings: other},
	}
	for name, o := range variants {
		for _, table := range []string{"https/a.example.com", "https/b.example.com", "https/a-much-longer-name.example.com"} {
			o := o
			o.packer = p
			got := httpConnectionManagerWith("ingress_https", table, o).GetTypedConfig()
			o.packer = nil
			want := httpConnectionManagerWith("ingress_https", table, o).GetTypedConfig()
			if got.GetTypeUrl() != want.GetTypeUrl() || !bytes.Equal(got.GetValue(), want.GetValue()) {
				t.Errorf("%s, %s: packed in parts differs from marshalled whole", name, table)
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
