// Package envoy builds Contour's Envoy resources from the DAG: pure
// functions from DAG values (translate/dag) and the resolved configuration
// (translate/config) to Envoy protos — listeners, routes, clusters,
// endpoints, secrets and filters. Package translate decides the order of
// the steps and calls them; envoy never imports translate.
package envoy
