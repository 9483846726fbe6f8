// Package diff compares two translations of a set of manifests, the Envoy
// resources and object status contourc computed for an old and a new
// version, and describes what changed in the terms a reviewer thinks in:
// routes per listener and virtual host (match → action), clusters,
// endpoints, TLS certificates and the validity of objects.
//
// Everything is compared on copies of the resources from which private key
// material has been removed (see Redact), so no output of this package can
// leak a key.
package diff
