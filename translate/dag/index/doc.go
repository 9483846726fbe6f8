// Package index holds what the processors of translate apply to the objects
// they look up: the checks of Secrets Contour makes before it serves them
// (TLS key pairs, CA bundles, CRLs, JWKS, and their PEM), and the order
// Contour gives objects of one kind (by namespace and name).
//
// It is the first part of the object index to leave package translate (see
// ARCHITECTURE.md, "State of the split"); the index itself (cache.go,
// service.go, secret_checks.go, ingress_class.go and the memo's half of it,
// cache_memo.go) is still there. It sits under translate/dag because the
// index is what the processors read to fill in the DAG. It imports nothing
// of contourc today; with the index it will import loader and dag, never
// translate, so that the processors and the builders can both import it.
package index
