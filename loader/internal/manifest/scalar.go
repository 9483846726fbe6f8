package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// decodeScalar sets a string, number or boolean. The YAML type of the value
// must match the Go type as the JSON types would have to: kubectl sends
// YAML to the API server as JSON, and the API server refuses the number
// 1234 for a string field. Quoting makes anything a string.
func (d *Decoder) decodeScalar(n *yaml.Node, v reflect.Value) {
	if n.Kind != yaml.ScalarNode {
		d.wrongType(n, "a "+scalarKindName(v.Kind()))
		return
	}
	tag := n.ShortTag()
	switch v.Kind() {
	case reflect.String:
		// Timestamps are strings in JSON; yaml.v3 tags unquoted ones.
		if tag != "!!str" && tag != "!!timestamp" {
			d.wrongType(n, "a string")
			return
		}
		v.SetString(n.Value)
	case reflect.Bool:
		b, ok := yamlBool(n)
		if !ok {
			d.wrongType(n, "a boolean")
			return
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i, err := yamlInt(n)
		if err == nil && v.OverflowInt(i) {
			err = fmt.Errorf("%s is out of range for %s", n.Value, v.Kind())
		}
		if err != nil {
			d.errorf(n.Line, "%s: %v", d.pathString(), err)
			return
		}
		v.SetInt(i)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		i, err := yamlInt(n)
		if err == nil && (i < 0 || v.OverflowUint(uint64(i))) {
			err = fmt.Errorf("%s is out of range for %s", n.Value, v.Kind())
		}
		if err != nil {
			d.errorf(n.Line, "%s: %v", d.pathString(), err)
			return
		}
		v.SetUint(uint64(i))
	case reflect.Float32, reflect.Float64:
		f, err := yamlFloat(n)
		if err != nil {
			d.errorf(n.Line, "%s: %v", d.pathString(), err)
			return
		}
		v.SetFloat(f)
	default:
		d.errorf(n.Line, "%s: cannot decode into %s", d.pathString(), v.Type())
	}
}

func scalarKindName(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	}
	return "number"
}

// yamlBool reads a boolean. Besides true and false, unquoted yes/no/on/off
// are accepted: kubectl's YAML reader (YAML 1.1) reads them as booleans.
func yamlBool(n *yaml.Node) (bool, bool) {
	if n.ShortTag() == "!!bool" {
		return strings.EqualFold(n.Value, "true"), true
	}
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return false, false
	}
	switch strings.ToLower(n.Value) {
	case "yes", "on":
		return true, true
	case "no", "off":
		return false, true
	}
	return false, false
}

// yamlInt reads an integer written in any of the forms YAML allows
// (1000, 1_000, 0x3e8, 0o1750).
func yamlInt(n *yaml.Node) (int64, error) {
	switch n.ShortTag() {
	case "!!int":
		s := strings.ReplaceAll(n.Value, "_", "")
		i, err := strconv.ParseInt(s, 0, 64)
		if err != nil {
			return 0, fmt.Errorf("%s is out of range", n.Value)
		}
		return i, nil
	case "!!float":
		// JSON has one number type, and the API server takes 80.0 for an
		// integer field of a custom resource, but not 80.5.
		f, err := yamlFloat(n)
		if err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return int64(f), nil
		}
		return 0, fmt.Errorf("expected an integer, got %s", DescribeNode(n))
	}
	return 0, fmt.Errorf("expected an integer, got %s", DescribeNode(n))
}

// yamlFloat reads a finite number.
func yamlFloat(n *yaml.Node) (float64, error) {
	tag := n.ShortTag()
	if tag != "!!float" && tag != "!!int" {
		return 0, fmt.Errorf("expected a number, got %s", DescribeNode(n))
	}
	if tag == "!!int" {
		i, err := yamlInt(n)
		return float64(i), err
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, fmt.Errorf("%s is not a finite number", n.Value)
	}
	return f, nil
}

// NodeToJSON renders a node as JSON, the form kubectl would have sent.
func NodeToJSON(n *yaml.Node) ([]byte, error) {
	var buf bytes.Buffer
	err := writeJSON(&buf, n)
	return buf.Bytes(), err
}

func writeJSON(buf *bytes.Buffer, n *yaml.Node) error {
	n = ResolveAlias(n)
	switch n.Kind {
	case yaml.MappingNode:
		buf.WriteByte('{')
		pairs := MappingPairs(n)
		for i := 0; i+1 < len(pairs); i += 2 {
			if i > 0 {
				buf.WriteByte(',')
			}
			k := ResolveAlias(pairs[i])
			if k.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: a key must be a string", k.Line)
			}
			writeJSONString(buf, k.Value)
			buf.WriteByte(':')
			if err := writeJSON(buf, pairs[i+1]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case yaml.SequenceNode:
		buf.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeJSON(buf, c); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case yaml.ScalarNode:
		return writeJSONScalar(buf, n)
	default:
		return fmt.Errorf("line %d: unexpected YAML node", n.Line)
	}
	return nil
}

func writeJSONScalar(buf *bytes.Buffer, n *yaml.Node) error {
	switch n.ShortTag() {
	case "!!null":
		buf.WriteString("null")
	case "!!bool":
		b, _ := yamlBool(n)
		buf.WriteString(strconv.FormatBool(b))
	case "!!int":
		i, err := yamlInt(n)
		if err != nil {
			return err
		}
		buf.WriteString(strconv.FormatInt(i, 10))
	case "!!float":
		f, err := yamlFloat(n)
		if err != nil {
			return err
		}
		buf.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
	default:
		writeJSONString(buf, n.Value)
	}
	return nil
}

func writeJSONString(buf *bytes.Buffer, s string) {
	b, _ := json.Marshal(s)
	buf.Write(b)
}
