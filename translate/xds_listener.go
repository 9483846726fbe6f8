package translate

import (
	"sort"
	"time"

	accesslogv3 "github.com/envoyproxy/go-control-plane/envoy/config/accesslog/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	tcpproxyv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/types/known/durationpb"
)

// Envoy listeners from the DAG. A listener exists only when it has something
// to serve; the stats/health and admin listeners always exist.

func listeners(d *DAG) []*listenerv3.Listener {
	out := staticListeners()
	for _, l := range d.sortedListeners() {
		switch l.Protocol {
		case "http":
			if len(l.virtualHosts()) > 0 {
				hcm := httpConnectionManagerWith(l.Name, l.RouteConfigName, hcmOptions{websockets: l.EnableWebsockets})
				out = append(out, plainListener(l.Name, l.Address, l.Port, hcm))
			}
		case "tcp":
			if l.TCPProxy != nil {
				out = append(out, plainListener(l.Name, l.Address, l.Port, tcpProxyFilter(l.Name, l.TCPProxy)))
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
		var filter *listenerv3.Filter
		var alpn []string
		if svh.TCPProxy != nil {
			// No ALPN: the backend negotiates protocols in its ServerHello.
			filter = tcpProxyFilter(l.Name, svh.TCPProxy)
		} else {
			opts := hcmOptions{secure: true, websockets: l.EnableWebsockets}
			if cv := svh.ClientValidation; cv != nil {
				opts.forwardClientCert = cv.Forward
			}
			if f := jwtAuthnFilter(svh.JWTProviders); f != nil {
				opts.extraFilters = append(opts.extraFilters, f)
			}
			if svh.Authorization != nil {
				opts.extraFilters = append(opts.extraFilters, extAuthzFilter(svh.Authorization))
			}
			filter = httpConnectionManagerWith(l.Name, secureRouteConfigName(l, svh), opts)
			alpn = []string{"h2", "http/1.1"}
		}
		var tls *tlsv3.DownstreamTlsContext
		if svh.Secret != nil { // nil for TLS passthrough
			tls = downstreamTLSContext(secretName(svh.Secret),
				tlsVersion(svh.MinTLSVersion, tlsv3.TlsParameters_TLSv1_2, true),
				tlsVersion(svh.MaxTLSVersion, tlsv3.TlsParameters_TLSv1_3, false),
				alpn...)
			if cv := svh.ClientValidation; cv != nil {
				tls = withDownstreamClientValidation(tls, downstreamClientValidation{
					CACertificate: cv.CACert, CRL: cv.CRL, SkipClientCertValidation: cv.SkipValidation,
					OnlyVerifyLeafCertCRL: cv.OnlyVerifyLeafCertCRL, OptionalClientCertificate: cv.Optional,
				})
			}
		}
		chains = append(chains, sniFilterChain(svh.Name, tls, filter))
	}
	return chains
}

// tcpProxyFilter forwards a connection to the proxy's clusters. Envoy's
// TCP weighted clusters cannot carry a zero weight, so zero-weight clusters
// are dropped unless all are zero, in which case all get weight 1.
func tcpProxyFilter(statPrefix string, p *TCPProxy) *listenerv3.Filter {
	tp := &tcpproxyv3.TcpProxy{
		StatPrefix:  statPrefix,
		AccessLog:   []*accesslogv3.AccessLog{hcmStdoutAccessLog()},
		IdleTimeout: durationpb.New(9001 * time.Second),
	}
	var keep []*Cluster
	for _, c := range p.Clusters {
		if c.Weight > 0 {
			keep = append(keep, c)
		}
	}
	if len(keep) == 0 {
		keep = p.Clusters
	}
	if len(keep) == 1 {
		tp.ClusterSpecifier = &tcpproxyv3.TcpProxy_Cluster{Cluster: clusterName(keep[0])}
	} else {
		wc := &tcpproxyv3.TcpProxy_WeightedCluster{}
		for _, c := range keep {
			wc.Clusters = append(wc.Clusters, &tcpproxyv3.TcpProxy_WeightedCluster_ClusterWeight{Name: clusterName(c), Weight: max(c.Weight, 1)})
		}
		sort.SliceStable(wc.Clusters, func(i, j int) bool {
			a, b := wc.Clusters[i], wc.Clusters[j]
			if a.Name != b.Name {
				return a.Name < b.Name
			}
			return a.Weight < b.Weight
		})
		tp.ClusterSpecifier = &tcpproxyv3.TcpProxy_WeightedClusters{WeightedClusters: wc}
	}
	return &listenerv3.Filter{Name: "envoy.filters.network.tcp_proxy", ConfigType: &listenerv3.Filter_TypedConfig{TypedConfig: mustAny(tp)}}
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
