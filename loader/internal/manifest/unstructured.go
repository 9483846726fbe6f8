package manifest

import (
	"fmt"
	"math"

	"go.yaml.in/yaml/v3"
)

// ToUnstructured turns an object's tree into the value the API server's
// JSON decoder makes of what kubectl sends for it: kubectl reads YAML as
// YAML 1.1 (sigs.k8s.io/yaml) and sends JSON, so an unquoted yes or on is
// true, and a number with nothing after its point is an integer. Aliases
// and merge keys are expanded. A key given twice is an error, as in
// kubectl's reading.
func ToUnstructured(n *yaml.Node) (map[string]any, []FieldError) {
	c := converter{}
	v, _ := c.value(n).(map[string]any)
	return v, c.errs
}

type converter struct {
	path []string
	errs []FieldError
}

func (c *converter) value(n *yaml.Node) any {
	n = ResolveAlias(n)
	switch n.Kind {
	case yaml.MappingNode:
		return c.mapping(n)
	case yaml.SequenceNode:
		out := make([]any, len(n.Content))
		for i, x := range n.Content {
			c.path = append(c.path, indexSegment(i))
			out[i] = c.value(x)
			c.path = c.path[:len(c.path)-1]
		}
		return out
	case yaml.ScalarNode:
		return c.scalar(n)
	}
	return nil
}

func (c *converter) mapping(n *yaml.Node) map[string]any {
	pairs := MappingPairs(n)
	out := make(map[string]any, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		k := ResolveAlias(pairs[i])
		if k.Kind != yaml.ScalarNode {
			c.errorf(k.Line, "%s: a field name must be a string", pathString(c.path))
			continue
		}
		if _, dup := out[k.Value]; dup {
			c.errorf(k.Line, "duplicate field %q", pathString(append(c.path, k.Value)))
			continue
		}
		c.path = append(c.path, k.Value)
		out[k.Value] = c.value(pairs[i+1])
		c.path = c.path[:len(c.path)-1]
	}
	return out
}

// yaml11Bools are the plain scalars YAML 1.1 reads as booleans that YAML
// 1.2 (yaml.v3) reads as strings.
var yaml11Bools = map[string]bool{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true, "on": true, "On": true, "ON": true,
	"n": false, "N": false, "no": false, "No": false, "NO": false, "off": false, "Off": false, "OFF": false,
}

func (c *converter) scalar(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		b, _ := yamlBool(n)
		return b
	case "!!int":
		i, err := yamlInt(n)
		if err != nil {
			c.errorf(n.Line, "%s: %v", pathString(c.path), err)
			return nil
		}
		return i
	case "!!float":
		f, err := yamlFloat(n)
		if err != nil {
			c.errorf(n.Line, "%s: %v", pathString(c.path), err)
			return nil
		}
		// JSON has one number type: 80.0 reaches the API server as 80.
		if f == math.Trunc(f) && math.Abs(f) < 1e18 {
			return int64(f)
		}
		return f
	case "!!str":
		if b, ok := yaml11Bools[n.Value]; ok && n.Style == 0 {
			return b
		}
	}
	return n.Value
}

func (c *converter) errorf(line int, format string, args ...any) {
	c.errs = append(c.errs, FieldError{Line: line, Msg: fmt.Sprintf(format, args...)})
}

// pathString renders a path as kubectl does: spec.rules[0].name.
func pathString(path []string) string {
	out := ""
	for _, p := range path {
		if out != "" && (len(p) == 0 || p[0] != '[') {
			out += "."
		}
		out += p
	}
	return out
}
