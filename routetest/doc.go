// Package routetest answers "where does this request go?" for the Envoy
// configuration contourc generates, following Envoy's documented request
// matching rather than Contour's DAG, so that what it reports is what the
// generated listeners and route configurations would do.
//
// A request (request.go) is matched in Envoy's order, one file per step:
// match_listener.go (listener by name or port, filter chain by SNI and
// transport protocol), filters.go (the connection manager or TCP proxy of
// the chain, and the HTTP filters that answer before routing), paths.go
// (path normalisation), match_vhost.go (virtual host by authority),
// match_route.go with matchers.go (routes in order: path specifier,
// headers, query parameters). evaluate.go drives the steps and records
// them in a Decision (decision.go). What the chosen route does is in
// action.go, redirect.go, rewrite.go, policy.go (rewrites, timeouts,
// retries, mirrors, header changes, ext_authz) and ipfilter.go (RBAC IP
// allow/deny lists). clusters.go maps Envoy clusters back to Services and
// sources.go maps routes back to the manifests they came from.
//
// `contourc test` uses testfile.go (the strict test file format),
// expect.go and compare.go (expectations and their comparison with a
// decision), report.go (go-test-like text, JSON, JUnit) and discover.go
// (the tests/ directory convention); `contourc explain` uses explain.go.
package routetest
