package render

// The static bootstrap as YAML, printed on every CPU.
//
// Nearly all of a bootstrap is its static resources. Each is printed as JSON
// and turned into the YAML of a sequence item on its own, in parallel, and
// passed on in order as soon as those before it are, so that a file can be
// written as it is printed; the rest of the bootstrap (node, admin,
// runtime) is printed the ordinary way, and the static_resources block is
// put where a single pass would have put it: right after node, proto field
// 1, as static_resources is field 2. A test compares the result with the
// single pass.

import (
	"bytes"
	"errors"

	bootstrapv3 "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	"google.golang.org/protobuf/proto"

	"github.com/contourc/contourc/internal/par"
	"github.com/contourc/contourc/render/internal/jsontext"
	"github.com/contourc/contourc/render/internal/protojson"
	"github.com/contourc/contourc/render/internal/protowalk"
)

// staticItemIndent is where the "- " of a static resource goes: under
// "  listeners:", as the single pass lays sequences out.
const staticItemIndent = 2

// staticPrint is how the static resources are printed: with the typed
// configs decoded before, and whether each resource is validated as it is
// printed (see protojson.Encoder.Validate).
type staticPrint struct {
	decoded  *protowalk.Decoded
	validate bool
}

func (p staticPrint) encoder() *protojson.Encoder {
	e := protojson.Compact()
	e.Decoded, e.Validate = p.decoded, p.validate
	return e
}

// writeBootstrapYAML prints b as YAML (internal/jsontext) after the bootstrap header,
// handing emit the segments to write one after the other, in order, each
// as soon as it and those before it are printed; the same bootstrap always
// gives the same bytes. With lent, emit is done with a segment when it
// returns, and its buffer is printed into again; otherwise emit keeps it.
// On an error emit may have been given part of the bootstrap.
func writeBootstrapYAML(b *bootstrapv3.Bootstrap, p staticPrint, emit func([]byte) error, lent bool) error {
	sr := b.GetStaticResources()
	b.StaticResources = nil
	restJSON, err := protojson.Compact().Marshal(nil, b)
	b.StaticResources = sr
	if err != nil {
		return err
	}
	rest, err := jsontext.ToYAML(restJSON)
	if err != nil {
		return err
	}
	if sr != nil && bytes.Equal(rest, []byte("{}\n")) {
		rest = nil // the static resources are all there is
	}
	at := afterFirstKey(rest, "node:")
	jobs := []yamlJob{{text: []byte(bootstrapHeader)}, {text: rest[:at]}}
	static, err := staticResourceJobs(sr, p)
	if err != nil {
		return err
	}
	jobs = append(jobs, static...)
	jobs = append(jobs, yamlJob{text: rest[at:]})
	return printYAMLJobs(jobs, p, emit, lent)
}

// yamlJob is one piece of a bootstrap's YAML: a resource to print as a
// sequence item whose "- " is at indent, or a fixed text.
type yamlJob struct {
	text       []byte
	m          proto.Message
	kind, name string
	indent     int
}

// staticResourceJobs are the pieces of the static_resources block, or none
// when sr is nil. A listener with many filter chains is printed in pieces
// (chainJobs).
func staticResourceJobs(sr *bootstrapv3.Bootstrap_StaticResources, p staticPrint) ([]yamlJob, error) {
	if sr == nil {
		return nil, nil
	}
	keys := []string{"listeners", "clusters", "secrets"} // in field order
	sections := []typeSection{
		staticSection("listener", sr.GetListeners()),
		staticSection("cluster", sr.GetClusters()),
		staticSection("secret", sr.GetSecrets()),
	}
	jobs := []yamlJob{{text: []byte("static_resources:")}}
	empty := true
	for i, s := range sections {
		if len(s.items) == 0 {
			continue // protojson leaves out empty lists
		}
		if empty {
			jobs = append(jobs, yamlJob{text: []byte("\n")})
			empty = false
		}
		jobs = append(jobs, yamlJob{text: []byte("  " + keys[i] + ":\n")})
		for j, m := range s.items {
			l, ok := m.(*listenerv3.Listener)
			if !ok || len(l.GetFilterChains()) < protojson.MinSplitList {
				jobs = append(jobs, yamlJob{m: m, kind: s.kind, name: s.names[j], indent: staticItemIndent})
				continue
			}
			chains, err := chainJobs(l, p)
			if err != nil {
				return nil, &ResourceError{Kind: "listener", Name: l.GetName(), Err: err}
			}
			jobs = append(jobs, chains...)
		}
	}
	if empty {
		jobs = append(jobs, yamlJob{text: []byte(" {}\n")})
	}
	return jobs, nil
}

// staticSection is a section of static resources in the bootstrap's own
// order.
func staticSection[T interface {
	proto.Message
	GetName() string
}](kind string, items []T) typeSection {
	s := typeSection{kind: kind, items: make([]proto.Message, len(items)), names: make([]string, len(items))}
	for i, m := range items {
		s.items[i], s.names[i] = m, m.GetName()
	}
	return s
}

// chainMarker names the one filter chain of a listener's stand-in: a plain
// word that cannot be a real chain's name (those are server names or
// Contour's fixed ones).
const chainMarker = "contourc-filter-chains-go-here"

// withChainMarker is l with one marker chain in place of its filter chains:
// a new message sharing l's other fields.
func withChainMarker(l *listenerv3.Listener) *listenerv3.Listener {
	stand := listenerWithoutChains(l)
	stand.FilterChains = []*listenerv3.FilterChain{{Name: chainMarker}}
	return stand
}

// chainJobs are the pieces of a listener with many filter chains: the
// listener printed with a marker chain in their place, cut at the marker's
// line, and between the two parts each chain, to print at the marker's
// indentation, as the single pass would have printed them there.
func chainJobs(l *listenerv3.Listener, p staticPrint) ([]yamlJob, error) {
	js, err := p.encoder().ForWorker().Marshal(nil, withChainMarker(l))
	if err != nil {
		return nil, err
	}
	whole, err := jsontext.AppendYAMLSequenceItem(nil, js, staticItemIndent)
	if err != nil {
		return nil, err
	}
	line := []byte("- name: " + chainMarker + "\n")
	at := bytes.Index(whole, line)
	if at < 0 {
		return nil, errors.New("yaml: the filter chains' place was not found")
	}
	start := bytes.LastIndexByte(whole[:at], '\n') + 1
	jobs := []yamlJob{{text: whole[:start]}}
	for _, fc := range l.GetFilterChains() {
		jobs = append(jobs, yamlJob{m: fc, kind: "listener", name: l.GetName(), indent: at - start})
	}
	return append(jobs, yamlJob{text: whole[at+len(line):]}), nil
}

// printYAMLJobs prints the jobs on every CPU and hands each to emit in
// order as soon as it and those before it are printed (see inOrder), so
// that only what is printed ahead waits in memory. Each resource is printed
// as JSON into its worker's buffer and turned into YAML at once. The error
// is that of the first failing job in order; emit gets nothing from it on.
func printYAMLJobs(jobs []yamlJob, p staticPrint, emit func([]byte) error, lent bool) error {
	e := p.encoder()
	out := newInOrder(func(_ int, segment []byte) error { return emit(segment) }, func(int) error { return nil })
	out.lent = lent
	par.Workers(len(jobs), func() func(int) {
		var scratch, item []byte
		we := e.ForWorker()
		return func(n int) {
			if !out.mayStart(n) {
				return
			}
			jb := jobs[n]
			if jb.m == nil {
				out.done(n, jb.text)
				return
			}
			js, err := we.Marshal(scratch[:0], jb.m)
			if err == nil {
				scratch = js
				item, err = jsontext.AppendYAMLSequenceItem(item[:0], js, jb.indent)
			}
			if err != nil {
				out.fail(n, &ResourceError{Kind: jb.kind, Name: jb.name, Err: err})
				return
			}
			if out.done(n, item) || cap(item) >= bigDocument {
				item = nil
			}
		}
	})
	return out.err
}

// afterFirstKey is the offset just past the block of the top-level key
// that starts yaml, when that key is key; else 0.
func afterFirstKey(yaml []byte, key string) int {
	if !bytes.HasPrefix(yaml, []byte(key)) {
		return 0
	}
	for i := bytes.IndexByte(yaml, '\n'); i >= 0 && i+1 < len(yaml); {
		if yaml[i+1] != ' ' {
			return i + 1
		}
		next := bytes.IndexByte(yaml[i+1:], '\n')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return len(yaml)
}
