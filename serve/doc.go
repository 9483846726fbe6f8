// Package serve is `contourc serve`: an xDS control plane that serves what
// Contour would serve for a set of manifest files, and follows the files as
// they change.
//
// The moving parts, one file each: server.go (a Server's life: listeners,
// the reload loop, shutdown), watch.go (file events), debounce.go (events
// into reloads), reload.go (files into a validated snapshot, or the reason
// why not), configsource.go (resources for ADS or Contour-style clients),
// snapshot.go (content-derived versions), cache.go (go-control-plane
// caches), xds.go (the gRPC services), tls.go (mTLS with rotation), http.go
// and metrics.go (health, metrics, debug), graph.go (/debug/graph), redact.go (no private key shown
// anywhere), walk.go (rewriting protos through Anys), log.go, and
// bootstrap.go (the Envoy bootstrap that points at this server).
package serve
