// Package builtin is what the API server does in code, rather than with a
// schema, to the built-in kinds Contour reads: the coded defaults of
// Service, Secret and Namespace (defaults_core.go), the validation of
// Ingress, Service, EndpointSlice, Endpoints, Secret and ConfigMap
// (validate_*.go), and the name rules they share (names.go), each worded
// as the API server words it. The loader's kind table (loader/kinds.go)
// says which rule applies to which kind; the errors here are field errors
// that the loader places at their lines.
package builtin
