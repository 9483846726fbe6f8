package render

// The static bootstrap as YAML, printed on every CPU.
//
// Nearly all of a bootstrap is its static resources. Each is printed as JSON
// and turned into the YAML of a sequence item on its own, in parallel; the
// rest of the bootstrap (node, admin, runtime) is printed the ordinary way,
// and the static_resources block is put where a single pass would have put
// it: right after node, proto field 1, as static_resources is field 2. A
// test compares the result with the single pass.

import (
	"bytes"
	"errors"
	"slices"

	bootstrapv3 "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	"google.golang.org/protobuf/proto"
)

// staticItemIndent is where the "- " of a static resource goes: under
// "  listeners:", as the single pass lays sequences out.
const staticItemIndent = 2

// staticPrint is how the static resources are printed: with the typed
// configs decoded before, and whether each resource is validated as it is
// printed (see jsonEncoder.validate).
type staticPrint struct {
	decoded  *decodedAnys
	validate bool
}

func (p staticPrint) encoder() *jsonEncoder {
	e := compactEncoder()
	e.decoded, e.validate = p.decoded, p.validate
	return e
}

// bootstrapYAML prints b as YAML (yaml.go) after the bootstrap header, as
// segments to write one after the other (joining them would copy the
// whole output once more); the same bootstrap always gives the same bytes.
func bootstrapYAML(b *bootstrapv3.Bootstrap, p staticPrint) ([][]byte, error) {
	sr := b.GetStaticResources()
	static, err := staticResourcesYAML(sr, p)
	if err != nil {
		return nil, err
	}
	b.StaticResources = nil
	restJSON, err := compactEncoder().marshal(nil, b)
	b.StaticResources = sr
	if err != nil {
		return nil, err
	}
	rest, err := jsonToYAML(restJSON)
	if err != nil {
		return nil, err
	}
	if len(static) > 0 && bytes.Equal(rest, []byte("{}\n")) {
		rest = nil // the static resources are all there is
	}
	at := afterFirstKey(rest, "node:")
	out := make([][]byte, 0, len(static)+3)
	out = append(out, []byte(bootstrapHeader), rest[:at])
	out = append(out, static...)
	return append(out, rest[at:]), nil
}

// staticResourcesYAML prints the static_resources block, as segments, or
// nothing when sr is nil.
func staticResourcesYAML(sr *bootstrapv3.Bootstrap_StaticResources, p staticPrint) ([][]byte, error) {
	if sr == nil {
		return nil, nil
	}
	keys := []string{"listeners", "clusters", "secrets"} // in field order
	sections := []typeSection{
		staticSection("listener", sr.GetListeners()),
		staticSection("cluster", sr.GetClusters()),
		staticSection("secret", sr.GetSecrets()),
	}
	items, err := yamlItems(sections, p)
	if err != nil {
		return nil, err
	}
	out := [][]byte{[]byte("static_resources:")}
	empty := true
	for i, s := range sections {
		if len(s.items) == 0 {
			continue // protojson leaves out empty lists
		}
		if empty {
			out = append(out, []byte("\n"))
			empty = false
		}
		out = append(out, []byte("  "+keys[i]+":\n"))
		for _, item := range items[i] {
			out = append(out, item...)
		}
	}
	if empty {
		out = append(out, []byte(" {}\n"))
	}
	return out, nil
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

// yamlItem is one printed resource: segments written one after the other.
type yamlItem [][]byte

// yamlItems prints every resource of every section as a YAML sequence item
// at staticItemIndent, on every CPU, keeping order; the error is that of
// the first failing resource. A listener with many filter chains is
// printed in pieces (spliceChains).
func yamlItems(sections []typeSection, p staticPrint) ([][]yamlItem, error) {
	sections = slices.Clone(sections)
	var spliced []splicedChains
	for i := range sections {
		sections[i].items = slices.Clone(sections[i].items)
		for j, m := range sections[i].items {
			if l, ok := m.(*listenerv3.Listener); ok && len(l.GetFilterChains()) >= minSplitList {
				sections[i].items[j] = withChainMarker(l)
				spliced = append(spliced, splicedChains{section: i, item: j, listener: l})
			}
		}
	}
	items, err := yamlItemsAt(sections, staticItemIndent, p)
	if err != nil {
		return nil, err
	}
	for _, sc := range spliced {
		if items[sc.section][sc.item], err = spliceChains(items[sc.section][sc.item], sc.listener, p); err != nil {
			return nil, &ResourceError{Kind: "listener", Name: sc.listener.GetName(), Err: err}
		}
	}
	return items, nil
}

// splicedChains is a listener printed with a marker for its filter chains,
// at items[section][item].
type splicedChains struct {
	section, item int
	listener      *listenerv3.Listener
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

// spliceChains replaces the marker chain's line in a listener's item with
// l's filter chains, printed on every CPU at the marker's indentation, as
// the single pass would have printed them there.
func spliceChains(item yamlItem, l *listenerv3.Listener, p staticPrint) (yamlItem, error) {
	whole := item[0] // a listener with the marker is printed in one piece
	line := []byte("- name: " + chainMarker + "\n")
	at := bytes.Index(whole, line)
	if len(item) != 1 || at < 0 {
		return nil, errors.New("yaml: the filter chains' place was not found")
	}
	start := bytes.LastIndexByte(whole[:at], '\n') + 1
	indent := at - start
	chains := typeSection{kind: "listener", items: make([]proto.Message, len(l.GetFilterChains())), names: make([]string, len(l.GetFilterChains()))}
	for i, fc := range l.GetFilterChains() {
		chains.items[i], chains.names[i] = fc, l.GetName()
	}
	printed, err := yamlItemsAt([]typeSection{chains}, indent, p)
	if err != nil {
		return nil, err
	}
	out := yamlItem{whole[:start]}
	for _, chain := range printed[0] {
		out = append(out, chain...)
	}
	return append(out, whole[at+len(line):]), nil
}

// yamlItemsAt prints every resource of every section as a YAML sequence
// item whose "- " is at indent, on every CPU, keeping order. Each resource
// is printed as JSON into its worker's buffer and turned into YAML at once,
// so the JSON of all of them is never held together.
func yamlItemsAt(sections []typeSection, indent int, p staticPrint) ([][]yamlItem, error) {
	e := p.encoder()
	type job struct{ section, item int }
	var jobs []job
	items := make([][]yamlItem, len(sections))
	for i, s := range sections {
		items[i] = make([]yamlItem, len(s.items))
		for j := range s.items {
			jobs = append(jobs, job{i, j})
		}
	}
	errs := make([]error, len(jobs))
	forEachJob(len(jobs), func() func(int) {
		var scratch []byte
		we := e.forWorker()
		return func(n int) {
			jb := jobs[n]
			s := sections[jb.section]
			js, err := we.marshal(scratch[:0], s.items[jb.item])
			var item []byte
			if err == nil {
				scratch = js
				item, err = yamlSequenceItem(js, indent)
			}
			if err != nil {
				errs[n] = &ResourceError{Kind: s.kind, Name: s.names[jb.item], Err: err}
				return
			}
			items[jb.section][jb.item] = yamlItem{item}
		}
	})
	if bad := nonNil(errs); len(bad) > 0 {
		return nil, bad[0]
	}
	return items, nil
}

// yamlSequenceItem converts one JSON object into a block sequence item whose
// "- " is at indent.
func yamlSequenceItem(doc []byte, indent int) ([]byte, error) {
	y := &yamlWriter{src: doc, out: make([]byte, 0, len(doc)+len(doc)/2)}
	i := skipSpace(doc, 0)
	if i >= len(doc) || doc[i] != '{' {
		return nil, errors.New("yaml: resource is not a JSON object")
	}
	y.indent(indent)
	if y.isEmpty(i) {
		return append(y.out, "- {}\n"...), nil
	}
	y.out = append(y.out, '-', ' ')
	if _, err := y.mapping(i, indent+2, true); err != nil {
		return nil, err
	}
	return y.out, nil
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
