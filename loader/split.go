package loader

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/contourc/contourc/loader/internal/manifest"
)

// maxListNesting bounds Lists of Lists; kubectl never nests them at all.
const maxListNesting = 8

// rawObject is one object found in a document, before decoding.
type rawObject struct {
	node       *yaml.Node // the object's mapping
	source     Source
	apiVersion string
	kind       string
	// name and namespace as written, for messages only.
	name, namespace string
	// sopsList says the object is an item of a List that SOPS encrypted
	// as a whole (`sops` beside `items`): its values are SOPS's too.
	sopsList bool
}

// splitDocument finds the objects of one document: the document itself,
// or the items of a List (`kubectl get -o yaml` prints a v1 List; typed
// lists such as HTTPProxyList look the same).
func splitDocument(file string, doc manifest.Document) ([]rawObject, []error) {
	return splitNode(file, doc.Index, doc.Root, "", 0)
}

func splitNode(file string, docIndex int, n *yaml.Node, where string, nesting int) ([]rawObject, []error) {
	n = manifest.ResolveAlias(n)
	src := Source{File: file, Line: n.Line, Doc: docIndex}
	if nesting == 0 {
		// A document that is no object at all makes its file one that is
		// not (only) manifests (notmanifest.go).
		if err := notAnObject(src, n); err != nil {
			return nil, []error{err}
		}
	}
	if n.Kind != yaml.MappingNode {
		return nil, []error{&Error{Source: src, Msg: where + "expected a Kubernetes object (a mapping with apiVersion and kind), got " + manifest.DescribeNode(n)}}
	}
	raw := rawObject{node: n, source: src}
	raw.apiVersion, raw.kind = stringField(n, "apiVersion"), stringField(n, "kind")
	if meta := manifest.MapValue(n, "metadata"); meta != nil {
		raw.name, raw.namespace = stringField(meta, "name"), stringField(meta, "namespace")
	}
	if err := checkHead(raw, n, where); err != nil {
		return nil, []error{err}
	}
	if isList(raw.kind, n) {
		if nesting >= maxListNesting {
			return nil, []error{&Error{Source: src, Kind: raw.kind, Msg: "Lists nested too deeply"}}
		}
		objs, errs := splitList(file, docIndex, raw, nesting)
		if raw.sopsList || hasSOPSMetadata(n) {
			for i := range objs {
				objs[i].sopsList = true
			}
		}
		return objs, errs
	}
	return []rawObject{raw}, nil
}

// checkHead makes sure an object says what it is. kubectl refuses objects
// without apiVersion or kind, and so does the loader: guessing would turn a
// typo into a silently skipped object.
func checkHead(raw rawObject, n *yaml.Node, where string) error {
	if k, first := repeatedKey(n); k != nil {
		return &Error{Source: raw.source.At(k.Line), Kind: raw.kind, Namespace: raw.namespace, Name: raw.name, Msg: fmt.Sprintf("%smapping key %q already defined at line %d", where, k.Value, first.Line)}
	}
	for _, key := range []string{"apiVersion", "kind"} {
		v := manifest.MapValue(n, key)
		switch {
		case v == nil || manifest.IsNull(v) || (v.Kind == yaml.ScalarNode && v.Value == ""):
			return &Error{Source: raw.source, Kind: raw.kind, Namespace: raw.namespace, Name: raw.name, Msg: where + key + " is missing"}
		case v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str":
			return &Error{Source: raw.source.At(v.Line), Kind: raw.kind, Namespace: raw.namespace, Name: raw.name, Msg: fmt.Sprintf("%s%s must be a string, got %s", where, key, manifest.DescribeNode(v))}
		}
	}
	return nil
}

// repeatedKey finds a key written twice in the object's own mapping, and
// its first occurrence. Decoding finds repeated fields deeper down, but
// only in objects it decodes: a skipped object whose first apiVersion is
// a typo and whose second is right would otherwise be skipped for the
// typo. kubectl's YAML reader refuses any repeated key; the message is
// its YAML library's. Objects have a handful of top-level keys, so the
// quadratic scan allocates nothing and is quicker than a set.
func repeatedKey(n *yaml.Node) (again, first *yaml.Node) {
	pairs := manifest.MappingPairs(n)
	for i := 2; i+1 < len(pairs); i += 2 {
		k := manifest.ResolveAlias(pairs[i])
		if k.Kind != yaml.ScalarNode {
			continue
		}
		for j := 0; j < i; j += 2 {
			if p := manifest.ResolveAlias(pairs[j]); p.Kind == yaml.ScalarNode && p.Value == k.Value {
				return k, p
			}
		}
	}
	return nil, nil
}

// isList reports whether an object is a List whose items are objects.
func isList(kind string, n *yaml.Node) bool {
	return kind == "List" || (strings.HasSuffix(kind, "List") && manifest.MapValue(n, "items") != nil)
}

func splitList(file string, docIndex int, list rawObject, nesting int) ([]rawObject, []error) {
	items := manifest.MapValue(list.node, "items")
	if items == nil || manifest.IsNull(items) {
		return nil, nil
	}
	items = manifest.ResolveAlias(items)
	if items.Kind != yaml.SequenceNode {
		return nil, []error{&Error{Source: list.source.At(items.Line), Kind: list.kind, Msg: "items: expected a list, got " + manifest.DescribeNode(items)}}
	}
	var out []rawObject
	var errs []error
	for i, item := range items.Content {
		objs, e := splitNode(file, docIndex, item, fmt.Sprintf("%s item %d: ", list.kind, i), nesting+1)
		out = append(out, objs...)
		errs = append(errs, e...)
	}
	return out, errs
}

// stringField is the string value of key in mapping n, or "".
func stringField(n *yaml.Node, key string) string {
	v := manifest.MapValue(n, key)
	if v == nil || v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str" {
		return ""
	}
	return v.Value
}

// lineOf is the line of the value at path under n, or of the deepest part
// of the path that exists.
func lineOf(n *yaml.Node, path ...string) int {
	line := n.Line
	for _, key := range path {
		n = manifest.MapValue(n, key)
		if n == nil {
			break
		}
		line = n.Line
	}
	return line
}
