package manifest

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Rules written after the API server's validation code report problems
// as field.Errors, whose paths are printed the API server's way
// (spec.rules[0].http.paths[1].path, data[tls.crt]). lineOfField finds the
// line of such a path in the object's YAML, so that the error names the
// offending field's line, not only the object's.

// lineOfField is the line of the node at path (a field.Path's String())
// under the object n, or of the deepest part of the path that exists.
func lineOfField(n *yaml.Node, path string) int {
	segs := pathSegments(path)
	line := n.Line
	if len(segs) > 0 && MapValue(n, segs[0].name) == nil {
		switch {
		case segs[0].name == "data" && MapValue(n, "stringData") != nil:
			// A Secret key written in stringData, merged into data.
			segs[0].name = "stringData"
		case MapValue(n, "metadata") != nil:
			// A few upstream rules name metadata fields from the
			// object's root ("annotations.kubernetes.io/ingress.class").
			n = MapValue(n, "metadata")
		}
	}
	for i := 0; i < len(segs); i++ {
		next, used := childAt(n, segs[i:])
		if next == nil {
			break
		}
		n, line = next, next.Line
		i += used - 1
	}
	return line
}

// pathSegment is one step of a field path: a field name, or a list index
// or map key written in brackets.
type pathSegment struct {
	name      string
	bracketed bool
}

func pathSegments(path string) []pathSegment {
	var segs []pathSegment
	for path != "" {
		switch path[0] {
		case '.':
			path = path[1:]
		case '[':
			end := strings.IndexByte(path, ']')
			if end < 0 {
				return append(segs, pathSegment{name: path[1:], bracketed: true})
			}
			segs = append(segs, pathSegment{name: path[1:end], bracketed: true})
			path = path[end+1:]
		default:
			end := strings.IndexAny(path, ".[")
			if end < 0 {
				end = len(path)
			}
			segs = append(segs, pathSegment{name: path[:end]})
			path = path[end:]
		}
	}
	return segs
}

// childAt steps from n along the first of segs, and says how many
// segments the step used: a map key printed with dots
// (annotations.kubernetes.io/ingress.class) spans several.
func childAt(n *yaml.Node, segs []pathSegment) (*yaml.Node, int) {
	n = ResolveAlias(n)
	if n.Kind == yaml.SequenceNode {
		i, err := strconv.Atoi(segs[0].name)
		if !segs[0].bracketed || err != nil || i < 0 || i >= len(n.Content) {
			return nil, 0
		}
		return ResolveAlias(n.Content[i]), 1
	}
	key := segs[0].name
	if v := MapValue(n, key); v != nil {
		return v, 1
	}
	for used := 2; used <= len(segs) && !segs[used-1].bracketed; used++ {
		key += "." + segs[used-1].name
		if v := MapValue(n, key); v != nil {
			return v, used
		}
	}
	return nil, 0
}

// FieldErrors turns a rule's field.Errors into the object's errors, each at
// its field's line and worded as the API server words it.
func FieldErrors(n *yaml.Node, errs field.ErrorList) []FieldError {
	out := make([]FieldError, 0, len(errs))
	for _, e := range errs {
		out = append(out, FieldError{Line: lineOfField(n, e.Field), Msg: e.Error()})
	}
	return out
}

// AppendInvalid adds to errs an Invalid error at path for value for each
// of msgs, the messages of one of apimachinery's validation functions.
// Callers check with a quick scan first, so that a valid value builds no
// path.
func AppendInvalid(errs field.ErrorList, path *field.Path, value any, msgs []string) field.ErrorList {
	for _, msg := range msgs {
		errs = append(errs, field.Invalid(path, value, msg))
	}
	return errs
}
