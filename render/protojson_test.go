package render

import (
	"bytes"
	"runtime"
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"google.golang.org/protobuf/proto"

	"github.com/contourc/contourc/render/internal/jsontext"
	"github.com/contourc/contourc/render/internal/protojson"
	"github.com/contourc/contourc/translate"
)

// sameAsProtojson fails unless the fast encoder prints m as protojson does,
// compact once both are laid out by the indenter, indented, and from a
// worker's table of shared messages, twice (the encoder's own tests cover
// tables of other sizes).
func sameAsProtojson(t *testing.T, enc *protojson.Encoder, m proto.Message) {
	t.Helper()
	want, wantErr := protojson.ProtoNames.Marshal(m)
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
	const prefix = "    "
	ind, err := protojson.Indented(prefix).Marshal(nil, m)
	if err != nil {
		t.Fatalf("%T: indented: %v", m, err)
	}
	if w := jsontext.AppendIndented(nil, want, prefix); !bytes.Equal(w, ind) {
		t.Fatalf("%T: indented:\n got %s\nwant %s", m, ind, w)
	}
	worker := protojson.Indented(prefix).ForWorker()
	for range 2 {
		again, err := worker.Marshal(nil, m)
		if err != nil {
			t.Fatalf("%T: a worker's: %v", m, err)
		}
		if !bytes.Equal(again, ind) {
			t.Fatalf("%T: a worker's:\n got %s\nwant %s", m, again, ind)
		}
	}
}

func TestFastJSONFixtures(t *testing.T) {
	r := testResources(t)
	enc := protojson.Compact()
	for _, s := range typeSections(r) {
		for _, m := range s.items {
			sameAsProtojson(t, enc, m)
		}
	}
	b, err := BuildBootstrap(r, BootstrapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sameAsProtojson(t, enc, b)
}

// TestFastJSONLongLists covers lists long enough to be printed in pieces,
// their length not a multiple of a piece, and long enough for pieces of
// at most protojson.MaxPiece elements.
func TestFastJSONLongLists(t *testing.T) {
	r := largeResources(t, 3*protojson.MinSplitList+17)
	for _, rc := range r.RouteConfigs {
		sameAsProtojson(t, protojson.Compact(), rc)
	}
	capped := largeResources(t, 20*protojson.MaxPiece*runtime.GOMAXPROCS(0)+3)
	for _, rc := range capped.RouteConfigs {
		sameAsProtojson(t, protojson.Indented(elementPrefix), rc)
	}
	// An unprintable element deep in the list fails the whole list with
	// protojson's error, whichever piece it is in.
	bad := proto.Clone(r.RouteConfigs[0]).(*routev3.RouteConfiguration)
	bad.VirtualHosts[2*protojson.MinSplitList].Name = "\xff"
	sameAsProtojson(t, protojson.Compact(), bad)
}

// TestFastJSONParityCorpus compares the two encoders, and the presence plan
// with Message.Has, on every resource contourc produces for the shared
// parity cases, when they are present.
func TestFastJSONParityCorpus(t *testing.T) {
	enc := protojson.Compact()
	eachCorpusCase(t, func(name string, r *translate.Resources) {
		t.Run(name, func(t *testing.T) {
			for _, s := range typeSections(r) {
				for _, m := range s.items {
					sameAsProtojson(t, enc, m)
					samePresence(t, m)
				}
			}
		})
	})
}
