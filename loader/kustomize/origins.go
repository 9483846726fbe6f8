package kustomize

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// Origin tracking makes kustomize annotate every object once per
// transformer it runs, which was as much again as the build itself. So a
// build first runs without it, and each object's origin is worked out
// from what the build read: the resource files its kustomizations list
// and the objects those hold (kustomize keeps an object's kind and adds
// only prefixes, suffixes and hashes to its name), and the generators
// they configure. Only when that leaves an object without a single best
// candidate is the build run again with origin tracking.

// head is what an object of a resource file says it is, and where.
type head struct {
	kind, namespace, name string
	line                  int // line of the object's first key
}

// sourceIndex is what a build's kustomizations list.
type sourceIndex struct {
	heads      map[string][]head // objects of each resource file, by absolute path
	generators []generator
}

// generator is a configMapGenerator or secretGenerator entry.
type generator struct {
	kind, name, file string
}

// indexSources reads the kustomization files a build read for their
// resource files and generators, and the resource files for their
// objects.
func indexSources(read map[string][]byte) sourceIndex {
	idx := sourceIndex{heads: map[string][]head{}}
	for path, data := range read {
		if !IsKustomizationFile(filepath.Base(path)) {
			continue
		}
		node, err := kyaml.Parse(string(data))
		if err != nil || node.YNode().Kind != kyaml.MappingNode {
			continue
		}
		dir := filepath.Dir(path)
		for _, field := range []string{"resources", "bases"} {
			for _, e := range scalars(node, field) {
				file := filepath.Join(dir, e)
				if text, ok := read[file]; ok && !IsKustomizationFile(filepath.Base(file)) {
					if _, done := idx.heads[file]; !done {
						idx.heads[file] = fileHeads(text)
					}
				}
			}
		}
		for field, kind := range map[string]string{"configMapGenerator": "ConfigMap", "secretGenerator": "Secret"} {
			elems, err := node.Pipe(kyaml.Lookup(field))
			if err != nil || elems == nil {
				continue
			}
			list, _ := elems.Elements()
			for _, e := range list {
				if n := e.Field("name"); n != nil {
					idx.generators = append(idx.generators, generator{kind: kind, name: n.Value.YNode().Value, file: path})
				}
			}
		}
	}
	return idx
}

// scalars are the string entries of a list field.
func scalars(node *kyaml.RNode, field string) []string {
	f := node.Field(field)
	if f == nil || f.Value.YNode().Kind != kyaml.SequenceNode {
		return nil
	}
	var out []string
	for _, e := range f.Value.YNode().Content {
		if e.Kind == kyaml.ScalarNode {
			out = append(out, e.Value)
		}
	}
	return out
}

// fileHeads lists the objects of a YAML or JSON file, the items of Lists
// included, as kustomize reads them.
func fileHeads(text []byte) []head {
	var heads []head
	dec := yaml.NewDecoder(bytes.NewReader(text))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) || err != nil {
			return heads
		}
		if len(doc.Content) == 1 {
			heads = appendHeads(heads, doc.Content[0])
		}
	}
}

func appendHeads(heads []head, n *yaml.Node) []head {
	if n.Kind != yaml.MappingNode {
		return heads
	}
	h := head{kind: value(n, "kind"), line: n.Line}
	if meta := field(n, "metadata"); meta != nil {
		h.name, h.namespace = value(meta, "name"), value(meta, "namespace")
	}
	if items := field(n, "items"); items != nil && strings.HasSuffix(h.kind, "List") && items.Kind == yaml.SequenceNode {
		for _, item := range items.Content {
			heads = appendHeads(heads, item)
		}
		return heads
	}
	return append(heads, h)
}

func field(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func value(n *yaml.Node, key string) string {
	if v := field(n, key); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}

// infer finds the origin of a built object among the index's files and
// generators; false when there is no single best candidate.
func (idx sourceIndex) infer(r Resource) (Origin, bool) {
	best, bestScore, tie := Origin{}, 0, false
	for file, heads := range idx.heads {
		for _, h := range heads {
			score := h.score(r)
			switch {
			case score > bestScore:
				best, bestScore, tie = Origin{File: file, Line: h.line}, score, false
			case score == bestScore && score > 0:
				tie = true
			}
		}
	}
	if bestScore > 0 {
		return best, !tie
	}
	var found []generator
	for _, g := range idx.generators {
		if g.kind == r.Kind && strings.Contains(r.Name, g.name) {
			found = append(found, g)
		}
	}
	if len(found) == 1 {
		return Origin{ConfiguredIn: found[0].file}, true
	}
	return Origin{}, false
}

// lineIn is the line of an object's document in a file whose origin
// kustomize gave.
func (idx sourceIndex) lineIn(file string, text []byte, r Resource) int {
	heads, ok := idx.heads[file]
	if !ok {
		heads = fileHeads(text)
	}
	line, bestScore := 0, 0
	for _, h := range heads {
		if score := h.score(r); score > bestScore {
			line, bestScore = h.line, score
		}
	}
	return line
}

// score says how well the source document h explains the built object r:
// 0 for another kind or a name r does not contain, more for the same
// namespace.
func (h head) score(r Resource) int {
	if h.kind != r.Kind {
		return 0
	}
	score := nameScore(r.Name, h.name)
	if score > 0 && h.namespace == r.Namespace {
		score++
	}
	return score
}

// nameScore says how well a source name explains a built one: best when
// equal, then by the length of the source name the built one contains
// (namePrefix, nameSuffix and hashes only add to a name); 0 when it does
// not contain it.
func nameScore(built, source string) int {
	switch {
	case source == "":
		return 0
	case built == source:
		return 4 * (len(source) + 1)
	case strings.Contains(built, source):
		return 2 * len(source)
	}
	return 0
}

// NameMatches reports whether a built object's name can have been made
// from a source name (kept as is, or with a prefix, suffix or hash).
func NameMatches(built, source string) bool { return nameScore(built, source) > 0 }
