package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/contourc/contourc/internal/prototest"
	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/render/internal/jsontext"
	"github.com/contourc/contourc/render/internal/protojson"
	"github.com/contourc/contourc/translate"
)

func renderJSON(t testing.TB, r *translate.Resources) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := JSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestJSONGolden(t *testing.T) {
	checkGolden(t, "resources.json.golden", renderJSON(t, testResources(t)))
}

func TestJSONStable(t *testing.T) {
	first := renderJSON(t, testResources(t))
	for range 5 {
		if got := renderJSON(t, testResources(t)); !bytes.Equal(got, first) {
			t.Fatal("JSON output differs between runs")
		}
	}
	// Already in canonical layout: nothing of protojson's whitespace left.
	var again bytes.Buffer
	if err := json.Indent(&again, bytes.TrimSuffix(first, []byte("\n")), "", "  "); err != nil {
		t.Fatal(err)
	}
	again.WriteByte('\n')
	if !bytes.Equal(again.Bytes(), first) {
		t.Error("JSON output is not json.Indent's layout")
	}
}

func TestJSONEmptyHasEveryType(t *testing.T) {
	want := `{
  "type.googleapis.com/envoy.config.cluster.v3.Cluster": [],
  "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment": [],
  "type.googleapis.com/envoy.config.listener.v3.Listener": [],
  "type.googleapis.com/envoy.config.route.v3.RouteConfiguration": [],
  "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret": [],
  "type.googleapis.com/envoy.service.runtime.v3.Runtime": []
}
`
	if got := string(renderJSON(t, &translate.Resources{})); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// The output is sorted by name whatever the input order, stably, and the
// caller's slices are not reordered.
func TestJSONSortsByName(t *testing.T) {
	r := testResources(t)
	slices.Reverse(r.Clusters)
	before := slices.Clone(r.Clusters)
	var doc map[string][]map[string]any
	if err := json.Unmarshal(renderJSON(t, r), &doc); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range doc["type.googleapis.com/envoy.config.cluster.v3.Cluster"] {
		names = append(names, c["name"].(string))
	}
	if want := []string{emptyCluster, wwwCluster}; !slices.Equal(names, want) {
		t.Errorf("clusters in order %q, want %q", names, want)
	}
	if !slices.Equal(r.Clusters, before) {
		t.Error("JSON reordered the caller's slice")
	}

	// Two clusters of one name keep their input order.
	a := &clusterv3.Cluster{Name: "same", AltStatName: "a"}
	b := &clusterv3.Cluster{Name: "same", AltStatName: "b"}
	s := section("cluster", []*clusterv3.Cluster{a, b}, (*clusterv3.Cluster).GetName)
	if !proto.Equal(s.items[0], a) || !proto.Equal(s.items[1], b) {
		t.Error("sort is not stable")
	}
}

// Field names are the proto ones (snake_case), as in Envoy's docs.
func TestJSONProtoNames(t *testing.T) {
	out := string(renderJSON(t, testResources(t)))
	for _, want := range []string{`"cluster_name": "default/www"`, `"eds_cluster_config"`, `"route_config_name"`} {
		if !bytes.Contains([]byte(out), []byte(want)) {
			t.Errorf("output lacks %s", want)
		}
	}
}

func BenchmarkJSON(b *testing.B) {
	r := largeResources(b, 1000)
	var buf bytes.Buffer
	b.ResetTimer()
	for b.Loop() {
		buf.Reset()
		if err := JSON(&buf, r); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}

func BenchmarkJSON5000(b *testing.B) {
	r := largeResources(b, 5000)
	var buf bytes.Buffer
	b.ResetTimer()
	for b.Loop() {
		buf.Reset()
		if err := JSON(&buf, r); err != nil {
			b.Fatal(err)
		}
	}
}

// resourcesWithFallback are resources with lists long enough to be printed
// in pieces, and a route configuration, also returned, that the fast
// encoder leaves to protojson.
func resourcesWithFallback(t *testing.T) (*translate.Resources, *routev3.RouteConfiguration) {
	t.Helper()
	r := largeResources(t, 2*protojson.MinSplitList+5)
	fallback := proto.Clone(r.RouteConfigs[0]).(*routev3.RouteConfiguration)
	fallback.Name = "zz-fallback"
	// An Any of a well-known type is printed by protojson, resource and all.
	fallback.TypedPerFilterConfig = map[string]*anypb.Any{"x": prototest.Any(t, &emptypb.Empty{})}
	// The same in the last piece of the long list: the pieces before it
	// are handed on before the resource falls back.
	inList := proto.Clone(r.RouteConfigs[0]).(*routev3.RouteConfiguration)
	inList.Name = "zz-fallback-in-list"
	inList.VirtualHosts[len(inList.VirtualHosts)-1].TypedPerFilterConfig = map[string]*anypb.Any{"x": prototest.Any(t, &emptypb.Empty{})}
	r.RouteConfigs = append(r.RouteConfigs, fallback, inList)
	return r, fallback
}

// A resource's long list is written as the pieces it was printed in; the
// bytes are those of the list printed whole, also when the resource is
// left to protojson after some pieces were already cut.
func TestJSONSegmentsMatchJoined(t *testing.T) {
	r, fallback := resourcesWithFallback(t)

	var got bytes.Buffer
	if err := JSON(&got, r); err != nil {
		t.Fatal(err)
	}
	sections := typeSections(r)
	docs, err := marshalAll(protojson.Indented(elementPrefix), sections, false)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	bw := bufio.NewWriter(&want)
	writeJSON(bw, sections, docs)
	bw.Flush()
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Error("the segmented output differs from the joined one")
	}
	// The fallback resource is laid out as protojson's, indented.
	js, err := protojson.ProtoNames.Marshal(fallback)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(got.Bytes(), jsontext.AppendIndented(nil, js, elementPrefix)) {
		t.Error("the resource left to protojson is not printed as protojson prints it")
	}
}

// countingSink counts the segments each resource is handed on in.
type countingSink map[[2]int]int

func (c countingSink) segment(section, item int, _ []byte) error {
	c[[2]int{section, item}]++
	return nil
}
func (c countingSink) end(int, int) error { return nil }
func (c countingSink) borrows() bool      { return true }

// A resource's long list is handed on piece by piece, so that a big
// resource is never held whole, in pieces of at most protojson.MaxPiece elements; a
// short resource is one segment.
func TestPrintAllHandsLongListsOnInPieces(t *testing.T) {
	for _, n := range []int{8 * protojson.MinSplitList, 20*protojson.MaxPiece*runtime.GOMAXPROCS(0) + 3} {
		sections := typeSections(largeResources(t, n))
		got := countingSink{}
		if err := printAll(protojson.Indented(elementPrefix), sections, true, got); err != nil {
			t.Fatal(err)
		}
		// The part before the list, a segment a piece at least, the rest.
		least := max(3, n/protojson.MaxPiece+2)
		for i, s := range sections {
			for j, name := range s.names {
				segments := got[[2]int{i, j}]
				long := s.kind == "route configuration" && name == "ingress_http"
				switch {
				case long && segments < least:
					t.Errorf("%s %s of %d virtual hosts: %d segments, want at least %d", s.kind, name, n, segments, least)
				case !long && segments != 1:
					t.Errorf("%s %s: %d segments, want 1", s.kind, name, segments)
				}
			}
		}
	}
}

// JSONStream writes the bytes JSON writes: with every type empty, with
// long lists printed in pieces, and with a resource left to protojson.
func TestJSONStreamMatchesJSON(t *testing.T) {
	withFallback, _ := resourcesWithFallback(t)
	for name, r := range map[string]*translate.Resources{
		"empty":     {},
		"small":     testResources(t),
		"in pieces": withFallback,
	} {
		t.Run(name, func(t *testing.T) {
			var whole, streamed bytes.Buffer
			if err := JSON(&whole, r); err != nil {
				t.Fatal(err)
			}
			if err := JSONStream(&streamed, r); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(whole.Bytes(), streamed.Bytes()) {
				t.Errorf("JSONStream wrote %d bytes that differ from JSON's %d", streamed.Len(), whole.Len())
			}
		})
	}
}

// inOrder passes documents on in job order whatever order they are
// printed in, and nothing from the first failed job on.
func TestInOrderPassesOnInJobOrder(t *testing.T) {
	var got []int
	passOn := func() *inOrder {
		got = nil
		return newInOrder(func(n int, _ []byte) error { got = append(got, n); return nil },
			func(int) error { return nil })
	}
	o := passOn()
	for _, n := range []int{2, 0, 3, 1} {
		o.done(n, []byte{byte(n)})
	}
	if !slices.Equal(got, []int{0, 1, 2, 3}) {
		t.Errorf("passed on %v, want 0 1 2 3", got)
	}

	o = passOn()
	o.done(3, nil)
	o.fail(2, errors.New("job 2"))
	o.done(0, nil)
	if !o.mayStart(1) || o.mayStart(4) {
		t.Error("after job 2 failed, job 1 must still be printed and job 4 need not be")
	}
	o.fail(1, errors.New("job 1"))
	o.done(4, nil)
	if !slices.Equal(got, []int{0}) || o.err.Error() != "job 1" {
		t.Errorf("passed on %v with error %v, want 0 and the earliest failure, job 1", got, o.err)
	}
}

// A job's segments printed before the job is done are passed on at once
// when it is the next job, and otherwise as soon as it becomes the next;
// each job ends after its last segment.
func TestInOrderPassesSegmentsOnEarly(t *testing.T) {
	var got []string
	o := newInOrder(func(n int, segment []byte) error { got = append(got, string(segment)); return nil },
		func(n int) error { got = append(got, fmt.Sprintf("end %d", n)); return nil })
	step := func(what func(), want ...string) {
		t.Helper()
		got = nil
		what()
		if !slices.Equal(got, want) {
			t.Errorf("passed on %q, want %q", got, want)
		}
	}
	step(func() { o.add(1, []byte("1a")) })
	step(func() { o.add(0, []byte("0a")) }, "0a")
	step(func() { o.add(1, []byte("1b")) })
	step(func() { o.done(2, []byte("2")) })
	step(func() { o.done(0, []byte("0b")) }, "0b", "end 0", "1a", "1b")
	step(func() { o.add(1, []byte("1c")) }, "1c")
	step(func() { o.done(1, []byte("1d")) }, "1d", "end 1", "2", "end 2")
}

// Segments given to inOrder that it keeps (waiting, or for a sink that
// keeps them) are copied when small, so that the printer can print into
// the same buffer again, and taken when big; those a borrowing sink takes
// at once are neither.
func TestInOrderKeepsWhatItMust(t *testing.T) {
	big := func(c byte) []byte { return bytes.Repeat([]byte{c}, keepBelow) }
	for _, lent := range []bool{true, false} {
		var got []string
		o := newInOrder(func(n int, segment []byte) error { got = append(got, string(segment[:1])); return nil },
			func(int) error { return nil })
		o.lent = lent
		buf := []byte("a")
		if o.add(1, buf) {
			t.Errorf("lent=%v: a small waiting segment was taken", lent)
		}
		copy(buf, "b")
		if !o.add(1, big('c')) {
			t.Errorf("lent=%v: a big waiting segment was not taken", lent)
		}
		if o.done(1, buf) {
			t.Errorf("lent=%v: a small waiting last segment was taken", lent)
		}
		copy(buf, "d")
		if taken := o.add(0, buf); taken {
			t.Errorf("lent=%v: a small segment passed on at once was taken", lent)
		}
		copy(buf, "e")
		if taken := o.done(0, big('f')); taken == lent {
			t.Errorf("lent=%v: a big segment passed on at once: taken %v", lent, taken)
		}
		if want := []string{"d", "f", "a", "c", "b"}; !slices.Equal(got, want) {
			t.Errorf("lent=%v: passed on %q, want %q", lent, got, want)
		}
	}
}

// JSONStream writes the resources before an invalid one, in order, and
// stops before it.
func TestJSONStreamWritesUpToAnInvalidResource(t *testing.T) {
	r := largeResources(t, 2000) // clusters come first, enough to pass bufio's buffer
	sorted := sortedByName(r.Clusters, (*clusterv3.Cluster).GetName)
	first, last := sorted[0], sorted[len(sorted)-1]
	last.ConnectTimeout = &durationpb.Duration{Seconds: -1}
	var out bytes.Buffer
	if err := JSONStream(&out, r); err == nil {
		t.Fatal("no error")
	}
	name := func(c *clusterv3.Cluster) string { return `"name": "` + c.GetName() + `"` }
	if !bytes.Contains(out.Bytes(), []byte(name(first))) {
		t.Errorf("the first cluster, valid, was not written before the invalid one: %d bytes written", out.Len())
	}
	if bytes.Contains(out.Bytes(), []byte(name(last))) {
		t.Error("the invalid cluster was written")
	}
}

// TestJSONUnpackedSame: printing a typed config from the message the
// translation remembered gives the bytes decoding it gives, on every parity
// case.
func TestJSONUnpackedSame(t *testing.T) {
	used := false
	eachCorpusCase(t, func(name string, r *translate.Resources) {
		if r.Unpacked == nil {
			t.Fatalf("%s: the translation remembered no typed config", name)
		}
		for _, l := range r.Listeners {
			for _, fc := range l.GetFilterChains() {
				used = used || r.Unpacked.Get(fc.GetTransportSocket().GetTypedConfig()) != nil
			}
		}
		decoding := *r
		decoding.Unpacked = nil
		if got, want := renderJSON(t, r), renderJSON(t, &decoding); !bytes.Equal(got, want) {
			t.Errorf("%s: JSON from remembered messages differs from JSON from their bytes", name)
		}
	})
	if !used {
		t.Error("no parity case had a remembered TLS context")
	}
}

// JSONStreamOnce writes the bytes JSONStream writes, for translations
// that remember their typed configs (Unpacked), and leaves the resources
// and the configs let go of.
func TestJSONStreamOnceMatchesJSONStream(t *testing.T) {
	inputs, _ := filepath.Glob("../testdata/golden/*/input")
	if len(inputs) == 0 {
		t.Fatal("no golden inputs")
	}
	remembered := 0
	for _, in := range inputs {
		translated := func() *translate.Resources {
			loaded, err := loader.Load([]string{in}, loader.Options{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := translate.Translate(loaded.Objects, translate.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return &res.Resources
		}
		var want, got bytes.Buffer
		if err := JSONStream(&want, translated()); err != nil {
			t.Fatal(err)
		}
		r := translated()
		var packed []*anypb.Any
		for _, l := range r.Listeners {
			for _, fc := range l.FilterChains {
				for _, f := range fc.Filters {
					if a := f.GetTypedConfig(); r.Unpacked.Get(a) != nil {
						packed = append(packed, a)
					}
				}
			}
		}
		remembered += len(packed)
		if err := JSONStreamOnce(&got, r); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want.Bytes(), got.Bytes()) {
			t.Errorf("%s: JSONStreamOnce wrote %d bytes that differ from JSONStream's %d", in, got.Len(), want.Len())
		}
		if len(r.Clusters)+len(r.Endpoints)+len(r.Listeners)+len(r.RouteConfigs)+len(r.Secrets)+len(r.Runtimes) > 0 {
			t.Errorf("%s: resources left after JSONStreamOnce", in)
		}
		for _, a := range packed {
			if r.Unpacked.Get(a) != nil {
				t.Errorf("%s: an unpacked config is still remembered", in)
				break
			}
		}
	}
	if remembered == 0 {
		t.Error("no translation remembered a typed config: the test checks too little")
	}
}
