package translate

// Builders for Envoy listeners, HTTP connection managers and downstream TLS,
// as Contour's `contour serve` emits them with no configuration file.
// Pure functions: DAG-independent values in, one proto out.

import (
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	runtimev3 "github.com/envoyproxy/go-control-plane/envoy/service/runtime/v3"
)

// xdsConfigSource is the ConfigSource Contour embeds for RDS/EDS/SDS:
// api_config_source GRPC V3 to the "contour" cluster.
func xdsConfigSource() *corev3.ConfigSource { panic("TODO") }

// staticListeners returns the stats-health (0.0.0.0:8002) and envoy-admin
// (127.0.0.1:9001) listeners.
func staticListeners() []*listenerv3.Listener { panic("TODO") }

// httpConnectionManager returns the envoy.filters.network.http_connection_manager
// filter with RDS route_config_name, stat_prefix, the default HTTP filter
// chain, and, when secure, the misdirected-request Lua filter first.
func httpConnectionManager(statPrefix, routeConfigName string, secure bool) *listenerv3.Filter {
	panic("TODO")
}

// plainListener returns a listener on address:port with one filter chain
// holding filters, and Contour's TCP keep-alive socket options.
func plainListener(name, address string, port uint32, filters ...*listenerv3.Filter) *listenerv3.Listener {
	panic("TODO")
}

// tlsListener returns a listener with the tls_inspector listener filter and
// the given filter chains (already sorted by the caller).
func tlsListener(name, address string, port uint32, chains []*listenerv3.FilterChain) *listenerv3.Listener {
	panic("TODO")
}

// sniFilterChain returns a filter chain matching serverName (or, for "*",
// transport_protocol "tls") with the given filters and optional downstream
// TLS context (nil for TLS passthrough).
func sniFilterChain(serverName string, tls *tlsv3.DownstreamTlsContext, filters ...*listenerv3.Filter) *listenerv3.FilterChain {
	panic("TODO")
}

// downstreamTLSContext returns the DownstreamTlsContext Contour puts on a
// secure virtual host's filter chain: TLS params (min/max, default ciphers),
// the SDS secret reference, and ALPN protocols.
func downstreamTLSContext(secretName string, minVersion, maxVersion tlsv3.TlsParameters_TlsProtocol, alpn ...string) *tlsv3.DownstreamTlsContext {
	panic("TODO")
}

// tlsCertificateSecret returns the SDS secret holding a serving certificate.
func tlsCertificateSecret(name string, cert, key []byte) *tlsv3.Secret { panic("TODO") }

// runtimeLayer returns Contour's RTDS layer "dynamic".
func runtimeLayer() *runtimev3.Runtime { panic("TODO") }
