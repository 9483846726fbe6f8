// Package dag holds the values of Contour's DAG, the protocol-neutral middle
// of the pipeline: the processors of translate (one per input API) fill them
// in from the loaded objects, and the Envoy builders only read them. Its
// shape follows Contour's internal/dag: Listener -> VirtualHost -> Route ->
// Cluster -> Service.
//
// It holds the containers (DAG, Listener, VirtualHost, SecureVirtualHost,
// Route, Cluster, Secret and the external services' clusters), the values
// they are made of, Contour's names for the Envoy resources they become
// (naming.go) and Envoy's order of a virtual host's routes (route_sort.go).
// Freeze marks a DAG complete; the builders then only read it.
package dag
