// Package mainbranch reads the fields of Contour's main branch that the
// pinned Contour API module lacks (a JWT provider's localJWKS, an
// authorization server's serviceType and httpSettings): it takes them out
// of an object's tree before the strict decode, decodes them into
// Extensions (extensions.go), adds their schema to admission (schema.go),
// and records each use with its line for the loader's warning (fields.go).
package mainbranch
