// Package jsontext rewrites JSON text that protojson or render's fast
// encoder printed, and so knows to be valid, without parsing it into
// values: laid out again with two-space indentation as json.Indent lays it
// out (indent.go), or turned into block YAML in protojson's key order
// (yaml.go). render writes its JSON and YAML outputs with it.
package jsontext
