// Package protojson prints Envoy messages as protojson with proto field
// names prints them (ProtoNames), byte for byte once laid out, only faster:
// each distinct packed config is printed once, messages several fields
// share are printed once per worker, long lists are printed in pieces on
// every CPU, and the layout is printed directly rather than re-indented.
// What it does not print as protojson does it leaves to protojson.
package protojson
