package loader

import (
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/contourc/contourc/loader/admission"
	"github.com/contourc/contourc/loader/internal/manifest"
)

// admit runs the API server's admission of a custom resource (package
// admission) on an object's tree, status left out. It returns the tree
// with the schema's defaults added, for the typed decode, or the errors
// the API server would have refused the object with, each at the line of
// the field it names.
func admit(raw rawObject, node *yaml.Node, spec *kindSpec) (*yaml.Node, []error) {
	obj, ferrs := manifest.ToUnstructured(node)
	if len(ferrs) > 0 {
		return nil, objectErrors(raw, spec, ferrs)
	}
	errs := admission.Admit(obj, crdVersionOf(raw, spec))
	if len(errs) == 0 {
		return withDefaults(node, obj), nil
	}
	// By line; errors about no field (rules not run because of the
	// others) last.
	out := make([]manifest.FieldError, 0, len(errs))
	var unplaced []manifest.FieldError
	for _, e := range errs {
		if place := errorPlace(e); place != "" {
			out = append(out, manifest.FieldError{Line: fieldLine(node, place), Msg: errorMessage(e)})
		} else {
			unplaced = append(unplaced, manifest.FieldError{Line: node.Line, Msg: errorMessage(e)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return nil, objectErrors(raw, spec, append(out, unplaced...))
}

// crdVersionOf is the CRD version an object is admitted as: the one it is
// written in, or, for the older versions the pinned CRDs no longer serve
// but contourc still reads (kinds.go), the internal version, whose shape
// they share.
func crdVersionOf(raw rawObject, spec *kindSpec) admission.GVK {
	_, version := splitAPIVersion(raw.apiVersion)
	gvk := admission.GVK{Group: spec.Group, Version: version, Kind: spec.Kind}
	if !admission.Known(gvk) {
		gvk.Version = spec.Version
	}
	return gvk
}

// objectErrors are an object's field errors as loader errors, at most
// maxErrorsPerObject of them.
func objectErrors(raw rawObject, spec *kindSpec, ferrs []manifest.FieldError) []error {
	ns := raw.namespace
	if ns == "" && spec.Namespaced {
		ns = "default"
	}
	var errs []error
	for i, fe := range ferrs {
		if i == manifest.MaxErrorsPerObject {
			errs = append(errs, &Error{Source: raw.source, Kind: spec.Kind, Namespace: ns, Name: raw.name, Msg: "too many errors, giving up on this object"})
			break
		}
		errs = append(errs, &Error{Source: raw.source.At(fe.Line), Kind: spec.Kind, Namespace: ns, Name: raw.name, Msg: fe.Msg})
	}
	return errs
}

// errorMessage words e as the API server does; an unknown field as a
// strict decoding error does.
func errorMessage(e *field.Error) string {
	if e.Type == admission.ErrorTypeUnknownField {
		return e.Detail
	}
	return e.Error()
}

// errorPlace is the field path e is about. Errors of a oneOf or anyOf
// come without one and name it in their message instead.
func errorPlace(e *field.Error) string {
	if e.Field != "<nil>" && e.Field != "" {
		return e.Field
	}
	if d, ok := strings.CutPrefix(e.Detail, `"`); ok {
		if i := strings.IndexByte(d, '"'); i > 0 {
			return d[:i]
		}
	}
	return ""
}

// fieldLine is the line of the field at path (spec.rules[0].name,
// metadata.labels[app]) under n, or of the deepest part of it there is.
// A field's line is its key's.
func fieldLine(n *yaml.Node, path string) int {
	line := n.Line
	for path != "" {
		var seg string
		seg, path = nextSegment(path)
		n = manifest.ResolveAlias(n)
		var next *yaml.Node
		switch {
		case n.Kind == yaml.SequenceNode:
			if i, err := strconv.Atoi(seg); err == nil && i >= 0 && i < len(n.Content) {
				next = n.Content[i]
				line = next.Line
			}
		case n.Kind == yaml.MappingNode:
			pairs := manifest.MappingPairs(n)
			for i := 0; i+1 < len(pairs); i += 2 {
				if k := manifest.ResolveAlias(pairs[i]); k.Value == seg {
					next, line = pairs[i+1], k.Line
					break
				}
			}
		}
		if next == nil {
			break
		}
		n = next
	}
	return line
}

// nextSegment splits the first field name or [index] off a path.
func nextSegment(path string) (seg, rest string) {
	path = strings.TrimPrefix(path, ".")
	if strings.HasPrefix(path, "[") {
		if i := strings.IndexByte(path, ']'); i > 0 {
			return path[1:i], path[i+1:]
		}
		return path[1:], ""
	}
	if i := strings.IndexAny(path, ".["); i >= 0 {
		return path[:i], path[i:]
	}
	return path, ""
}

// withDefaults is n with the fields defaulting added to v (n's value)
// added to it too. Nodes
// are copied where they change, never edited: aliases may share them.
func withDefaults(n *yaml.Node, v any) *yaml.Node {
	n = manifest.ResolveAlias(n)
	switch n.Kind {
	case yaml.MappingNode:
		m, ok := v.(map[string]any)
		if !ok {
			return n
		}
		return mappingWithDefaults(n, m)
	case yaml.SequenceNode:
		list, ok := v.([]any)
		if !ok || len(list) != len(n.Content) {
			return n
		}
		var content []*yaml.Node
		for i, item := range n.Content {
			c := item
			if manifest.IsNull(manifest.ResolveAlias(item)) && list[i] != nil {
				c = nodeOf(list[i], n.Line)
			} else {
				c = withDefaults(item, list[i])
			}
			if c != item && content == nil {
				content = append(make([]*yaml.Node, 0, len(n.Content)), n.Content[:i]...)
			}
			if content != nil {
				content = append(content, c)
			}
		}
		if content == nil {
			return n
		}
		copied := *n
		copied.Content = content
		return &copied
	}
	return n
}

func mappingWithDefaults(n *yaml.Node, m map[string]any) *yaml.Node {
	pairs := manifest.MappingPairs(n)
	var content []*yaml.Node
	given := 0 // keys of n that m has
	for i := 0; i+1 < len(pairs); i += 2 {
		k, val := manifest.ResolveAlias(pairs[i]), pairs[i+1]
		c := val
		if x, ok := m[k.Value]; ok {
			given++
			if manifest.IsNull(manifest.ResolveAlias(val)) && x != nil {
				c = nodeOf(x, k.Line)
			} else {
				c = withDefaults(val, x)
			}
		}
		if c != val && content == nil {
			content = append(make([]*yaml.Node, 0, len(pairs)+2), pairs[:i]...)
		}
		if content != nil {
			content = append(content, pairs[i], c)
		}
	}
	if given == len(m) && content == nil {
		return n // the common case: nothing defaulted here
	}
	var added []string
	if given < len(m) {
		for k := range m {
			if !hasKey(pairs, k) {
				added = append(added, k)
			}
		}
	}
	if content == nil {
		content = append(make([]*yaml.Node, 0, len(pairs)+2*len(added)), pairs...)
	}
	sort.Strings(added)
	for _, k := range added {
		content = append(content, scalarNode("!!str", k, n.Line), nodeOf(m[k], n.Line))
	}
	copied := *n
	copied.Content = content
	return &copied
}

func hasKey(pairs []*yaml.Node, key string) bool {
	for i := 0; i+1 < len(pairs); i += 2 {
		if manifest.ResolveAlias(pairs[i]).Value == key {
			return true
		}
	}
	return false
}

// nodeOf is a JSON value (a default) as a tree at line.
func nodeOf(v any, line int) *yaml.Node {
	switch v := v.(type) {
	case map[string]any:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: line}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			n.Content = append(n.Content, scalarNode("!!str", k, line), nodeOf(v[k], line))
		}
		return n
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: line}
		for _, x := range v {
			n.Content = append(n.Content, nodeOf(x, line))
		}
		return n
	case string:
		return scalarNode("!!str", v, line)
	case bool:
		return scalarNode("!!bool", strconv.FormatBool(v), line)
	case int64:
		return scalarNode("!!int", strconv.FormatInt(v, 10), line)
	case float64:
		return scalarNode("!!float", strconv.FormatFloat(v, 'g', -1, 64), line)
	}
	return scalarNode("!!null", "null", line)
}

// scalarNode is a scalar of a default. The few there are (Service,
// PathPrefix, 1...) are made once and shared by every tree they are added
// to, never edited, and have no line: a default has none of its own.
func scalarNode(tag, value string, _ int) *yaml.Node {
	k := scalarKey{tag, value}
	if n, ok := defaultScalars.Load(k); ok {
		return n.(*yaml.Node)
	}
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value}
	if defaultScalarCount.Add(1) <= maxDefaultScalars {
		defaultScalars.Store(k, n)
	}
	return n
}

type scalarKey struct{ tag, value string }

// maxDefaultScalars bounds the scalars kept: CRDs have a few dozen
// defaults.
const maxDefaultScalars = 4096

var (
	defaultScalars     sync.Map
	defaultScalarCount atomic.Int64
)
