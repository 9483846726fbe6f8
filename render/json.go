package render

// The xDS resources as one JSON document, the shape of Contour's own dump of
// its caches: an object keyed by type URL, each value the resources of that
// type sorted by name.

import (
	"bufio"
	"encoding/json"
	"io"
	"sort"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	runtimev3 "github.com/envoyproxy/go-control-plane/envoy/service/runtime/v3"
	"google.golang.org/protobuf/proto"

	"github.com/contourc/contourc/render/internal/jsontext"
	"github.com/contourc/contourc/translate"
)

// elementPrefix starts each line of a resource: resources sit two levels
// deep, in the list under their type URL.
const elementPrefix = jsontext.IndentUnit + jsontext.IndentUnit

// typeSection is the resources of one type, in output order.
type typeSection struct {
	typeURL string
	kind    string // for errors: "cluster", "listener", ...
	items   []proto.Message
	names   []string
}

// JSON writes the xDS resources as one JSON object keyed by type URL, each
// value the name-sorted list of resources in protojson form. Every type is
// present, with [] when it has no resources, so consumers need no special
// case. The output is the same bytes on every run and is laid out as
// json.Indent with two spaces lays it out. Resources are checked as
// Validate checks them while they are printed: if one breaks Envoy's rules,
// JSON writes nothing and returns Validate's error.
func JSON(w io.Writer, r *translate.Resources) error {
	sections := typeSections(r)
	docs := newDocTable(sections)
	if err := printValidSections(r, sections, docs); err != nil {
		return err
	}
	// Streamed rather than joined into one buffer first: for thousands of
	// resources that copy (and zeroing the buffer) cost a tenth of the
	// time. Nothing is written unless every resource printed.
	bw := bufio.NewWriterSize(w, 256<<10)
	writeJSON(bw, sections, docs)
	return bw.Flush()
}

// JSONStream writes what JSON writes, each resource as soon as it and
// those before it are printed, so the output is never held in memory
// whole. If a resource breaks Envoy's rules it returns Validate's error,
// but what came before it may already be written: it is for writers that
// can take a write back, such as a temporary file.
func JSONStream(w io.Writer, r *translate.Resources) error {
	return streamJSON(w, r, typeSections(r), false)
}

// JSONStreamOnce is JSONStream for a caller done with r: r is emptied, and
// each resource let go of as soon as it is printed, so that the memory it
// holds is collected while the rest is printed. At 5,000 HTTPProxies the
// resources are about 140 MB, most of what a render holds.
func JSONStreamOnce(w io.Writer, r *translate.Resources) error {
	sections := typeSections(r)
	*r = translate.Resources{Unpacked: r.Unpacked}
	return streamJSON(w, r, sections, true)
}

// streamJSON writes sections as JSONStream does; drop is printSections'.
func streamJSON(w io.Writer, r *translate.Resources, sections []typeSection, drop bool) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	l := &jsonLayout{bw: bw, sections: sections}
	l.begin()
	if err := printSections(r, sections, l, drop); err != nil {
		return err
	}
	l.close()
	return bw.Flush()
}

// writeJSON lays out the top-level object around the resources, already
// indented at elementPrefix; docs holds one list per section. Errors stick
// in bw and surface at Flush.
func writeJSON(bw *bufio.Writer, sections []typeSection, docs [][]document) {
	l := &jsonLayout{bw: bw, sections: sections}
	l.begin()
	for i := range docs {
		for j, doc := range docs[i] {
			for _, segment := range doc {
				_ = l.segment(i, j, segment)
			}
			_ = l.end(i, j)
		}
	}
	l.close()
}

// jsonLayout writes the top-level object around resources given to it in
// order, opening and closing each type's list as it goes. As a docSink it
// copies each segment into bw or writes it, and keeps none. Errors stick in
// bw: they surface at Flush, and as the sink's error.
type jsonLayout struct {
	bw       *bufio.Writer
	sections []typeSection
	current  int  // the section being written; those before are closed
	open     bool // its list is open
	inItem   bool // a resource is being written
}

func (l *jsonLayout) begin() { l.bw.WriteString("{\n") }

// segment writes the next segment of item of section, starting the item
// first when it is its first.
func (l *jsonLayout) segment(section, item int, segment []byte) error {
	if !l.inItem {
		l.closeBefore(section)
		l.openCurrent()
		l.bw.WriteString("\n" + elementPrefix)
		l.inItem = true
	}
	_, err := l.bw.Write(segment)
	return err
}

// borrows: bw copies what it does not write at once.
func (l *jsonLayout) borrows() bool { return true }

// end ends item of section, whose segments are written.
func (l *jsonLayout) end(section, item int) error {
	if !l.inItem {
		_ = l.segment(section, item, nil)
	}
	l.inItem = false
	if item < len(l.sections[section].items)-1 {
		l.bw.WriteByte(',')
	}
	_, err := l.bw.WriteString("") // a failed write's error sticks in bw
	return err
}

// close closes the sections left open and the top-level object.
func (l *jsonLayout) close() {
	l.closeBefore(len(l.sections))
	l.bw.WriteString("}\n")
}

// closeBefore closes every section before section, empty ones included.
func (l *jsonLayout) closeBefore(section int) {
	for ; l.current < section; l.current++ {
		l.openCurrent()
		if len(l.sections[l.current].items) > 0 {
			l.bw.WriteString("\n" + jsontext.IndentUnit)
		}
		l.bw.WriteByte(']')
		if l.current < len(l.sections)-1 {
			l.bw.WriteByte(',')
		}
		l.bw.WriteByte('\n')
		l.open = false
	}
}

func (l *jsonLayout) openCurrent() {
	if l.open {
		return
	}
	key, _ := json.Marshal(l.sections[l.current].typeURL) // a string always marshals
	l.bw.WriteString(jsontext.IndentUnit)
	l.bw.Write(key)
	l.bw.WriteString(": [")
	l.open = true
}

// typeSections lists every resource type in alphabetical order of type URL,
// the order Contour's dump uses.
func typeSections(r *translate.Resources) []typeSection {
	if r == nil {
		r = &translate.Resources{}
	}
	return []typeSection{
		section("cluster", r.Clusters, (*clusterv3.Cluster).GetName),
		section("cluster load assignment", r.Endpoints, (*endpointv3.ClusterLoadAssignment).GetClusterName),
		section("listener", r.Listeners, (*listenerv3.Listener).GetName),
		section("route configuration", r.RouteConfigs, (*routev3.RouteConfiguration).GetName),
		section("secret", r.Secrets, (*tlsv3.Secret).GetName),
		section("runtime", r.Runtimes, (*runtimev3.Runtime).GetName),
	}
}

// section sorts a copy of items by name. translate already sorts them, but
// the output order is this package's promise, so it does not rest on that;
// the sort is stable so equal names keep their input order.
func section[T proto.Message](kind string, items []T, name func(T) string) typeSection {
	sorted := sortedByName(items, name)
	s := typeSection{
		typeURL: typeURL[T](),
		kind:    kind,
		items:   make([]proto.Message, len(sorted)),
		names:   make([]string, len(sorted)),
	}
	for i, m := range sorted {
		s.items[i], s.names[i] = m, name(m)
	}
	return s
}

// sortedByName returns a name-sorted copy of items; the caller's slice is
// left alone.
func sortedByName[T any](items []T, name func(T) string) []T {
	sorted := append([]T(nil), items...)
	sort.SliceStable(sorted, func(i, j int) bool { return name(sorted[i]) < name(sorted[j]) })
	return sorted
}

// typeURL is the xDS type URL of message type T, derived from its descriptor
// so it cannot drift from the type.
func typeURL[T proto.Message]() string {
	var zero T
	return "type.googleapis.com/" + string(zero.ProtoReflect().Descriptor().FullName())
}
