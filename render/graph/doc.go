// Package graph draws the routing contourc would serve as a graph, the way
// Contour's live /debug/dag does, for people reviewing a repository:
// listeners -> virtual hosts -> routes (in Envoy's order) -> clusters ->
// Services, with the objects the virtual hosts and routes come from to
// their left (HTTPProxy roots and the HTTPProxies they include, Ingresses,
// Gateway API routes under the Gateways they attach to).
//
// The graph is read from a translation's result (the Envoy resources, whose
// route tables hold the routes in Envoy's match order, and the status of
// each object) and from the loaded objects (objects.go: where each was
// read, HTTPProxy includes, Gateway API parentRefs). model.go builds it,
// status.go colours it, layout.go lays it out in layers from left to right
// (deterministically, no external tool), dot.go writes Graphviz DOT and
// html.go one self-contained HTML page with the SVG drawn here and a small
// embedded script for search: no network access, no external library.
package graph
