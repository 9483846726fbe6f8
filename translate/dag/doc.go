// Package dag holds the values of Contour's DAG, the protocol-neutral middle
// of the pipeline: the processors of translate (one per input API) fill them
// in from the loaded objects, and the Envoy builders only read them. Its
// shape follows Contour's internal/dag: Listener -> VirtualHost -> Route ->
// Cluster -> Service.
//
// The move out of package translate is under way (see ARCHITECTURE.md): the
// value types a route, a virtual host and an upstream are made of live here;
// the containers (DAG, Listener, VirtualHost, Route, Cluster, Secret), whose
// unexported fields the processors still write, do not yet.
package dag
