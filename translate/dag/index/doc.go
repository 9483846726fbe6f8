// Package index is the object index the processors of translate read: the
// loaded objects by kind and name, as Contour's KubernetesCache holds them,
// with its admission filters (ingress class, the namespaces whose Secrets
// Contour watches), and the lookups the processors make through it
// (Services and their ports, Secrets with TLSCertificateDelegation, CA
// bundles from Secrets and ConfigMaps, the configured client certificate).
// It holds the checks of Secrets Contour makes before it serves them (TLS
// key pairs, CA bundles, CRLs, JWKS, and their PEM), remembered by content,
// and checked ahead on idle CPUs; the Service annotations it reads (upstream
// protocols, circuit breakers); and the order Contour gives objects of one
// kind (by namespace and name).
//
// Its Memo is the index's part of translate's Memo: the Secret verdicts and
// the last index, which the next translation patches with the objects that
// changed (memo.go). Options are the few values of Contour's configuration
// the index applies, filled in by translate.
//
// It sits under translate/dag because it is what the processors read to
// fill in the DAG, and in a package of its own because dag holds no
// Kubernetes objects while the index is made of them. It imports loader and
// translate/dag, never translate (imports_test.go), so that the processors
// and the builders can both import it.
package index
