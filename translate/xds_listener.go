package translate

import (
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
)

// Envoy listeners from the DAG. A listener exists only when it has something
// to serve; the stats/health and admin listeners always exist.

func listeners(d *DAG) []*listenerv3.Listener {
	out := staticListeners()
	for _, l := range d.sortedListeners() {
		switch l.Protocol {
		case "http":
			if len(l.virtualHosts()) > 0 {
				out = append(out, plainListener(l.Name, l.Address, l.Port, httpConnectionManager(l.Name, l.RouteConfigName, false)))
			}
		case "https":
			if chains := secureFilterChains(l); len(chains) > 0 {
				out = append(out, tlsListener(l.Name, l.Address, l.Port, chains))
			}
		}
	}
	sortByName(out, func(l *listenerv3.Listener) string { return l.Name })
	return out
}

// secureFilterChains returns one SNI filter chain per valid secure virtual
// host, ordered by server name.
func secureFilterChains(l *Listener) []*listenerv3.FilterChain {
	var chains []*listenerv3.FilterChain
	for _, svh := range l.secureVirtualHosts() {
		tls := downstreamTLSContext(secretName(svh.Secret),
			tlsVersion(svh.MinTLSVersion, tlsv3.TlsParameters_TLSv1_2, true),
			tlsVersion(svh.MaxTLSVersion, tlsv3.TlsParameters_TLSv1_3, false),
			"h2", "http/1.1")
		hcm := httpConnectionManager(l.Name, secureRouteConfigName(svh), true)
		chains = append(chains, sniFilterChain(svh.Name, tls, hcm))
	}
	return chains
}

// tlsVersion clamps a virtual host's TLS version to Contour's global range
// (1.2 to 1.3): a minimum never goes below it, a maximum never above it.
func tlsVersion(v string, global tlsv3.TlsParameters_TlsProtocol, isMin bool) tlsv3.TlsParameters_TlsProtocol {
	var parsed tlsv3.TlsParameters_TlsProtocol
	switch v {
	case "1.2":
		parsed = tlsv3.TlsParameters_TLSv1_2
	case "1.3":
		parsed = tlsv3.TlsParameters_TLSv1_3
	default:
		return global
	}
	if isMin {
		return max(parsed, global)
	}
	return min(parsed, global)
}
