package envoy

import (
	"sort"
	"time"

	accesslogv3 "github.com/envoyproxy/go-control-plane/envoy/config/accesslog/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	tcpproxyv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/contourc/contourc/translate/config"
	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/dag/index"
)

// Envoy listeners from the DAG. A listener exists only when it has something
// to serve; the stats/health and admin listeners always exist.

func listeners(d *dag.DAG) []*listenerv3.Listener {
	return ListenersFor(d, config.Defaults(), nil, nil)
}

// ListenersFor builds the listeners with the configuration's settings,
// remembering in u the typed configs of the connection managers and filter
// chains.
func ListenersFor(d *dag.DAG, s *config.Settings, b *Reuse, u *Unpacked) []*listenerv3.Listener {
	out := staticListenersFor(s)
	for _, l := range d.SortedListeners() {
		switch l.Protocol {
		case "http":
			if len(l.VirtualHosts()) > 0 {
				opts := hcmOptions{websockets: l.EnableWebsockets, settings: s, unpacked: u}
				if s.ResolvedGlobalExtAuth != nil {
					opts.extraFilters = append(opts.extraFilters, extAuthzFilter(s.ResolvedGlobalExtAuth))
				}
				hcm := httpConnectionManagerWith(l.Name, l.RouteConfigName, opts)
				pl := tuneListener(plainListener(l.Name, l.Address, l.Port, hcm), s)
				if s.UseProxyProtocol {
					pl.ListenerFilters = []*listenerv3.ListenerFilter{proxyProtocolFilter()}
				}
				out = append(out, pl)
			}
		case "tcp":
			if l.TCPProxy != nil {
				out = append(out, tuneListener(plainListener(l.Name, l.Address, l.Port, tcpProxyFilterWith(l.Name, l.TCPProxy, hcmAccessLogs(s, false))), s))
			}
		case "https":
			if chains := secureFilterChainsFor(l, s, b, u, newHCMPacker(s)); len(chains) > 0 {
				tl := tuneListener(tlsListener(l.Name, l.Address, l.Port, chains), s)
				tl.ListenerFilters = []*listenerv3.ListenerFilter{tlsInspectorFilter(s.JA3, s.JA4)}
				if s.UseProxyProtocol {
					tl.ListenerFilters = append([]*listenerv3.ListenerFilter{proxyProtocolFilter()}, tl.ListenerFilters...)
				}
				out = append(out, tl)
			}
		}
	}
	index.SortByName(out, func(l *listenerv3.Listener) string { return l.Name })
	return out
}

// secureFilterChains returns one SNI filter chain per valid secure virtual
// host, ordered by server name.
func secureFilterChains(l *dag.Listener) []*listenerv3.FilterChain {
	return secureFilterChainsFor(l, config.Defaults(), nil, nil, nil)
}

// secureFilterChainsFor returns one SNI filter chain per valid secure
// virtual host, ordered by server name, then the fallback-certificate chain
// when a virtual host enables it. p, when set, packs their connection
// managers.
func secureFilterChainsFor(l *dag.Listener, s *config.Settings, b *Reuse, u *Unpacked, p *hcmPacker) []*listenerv3.FilterChain {
	var chains []*listenerv3.FilterChain
	var fallback *listenerv3.FilterChain
	alpn := alpnForVersions(s.DefaultHTTPVersions)
	for _, svh := range l.SecureVirtualHosts() {
		var chainALPN []string
		var forward *dag.ForwardClientCert
		if cv := svh.ClientValidation; cv != nil {
			forward = cv.Forward
		}
		if svh.TCPProxy == nil {
			chainALPN = alpn
		}
		chains = append(chains, b.filterChain(l, svh, func() *listenerv3.FilterChain {
			return secureFilterChain(l, svh, s, chainALPN, forward, u, p)
		}))
		if svh.FallbackCertificate != nil && fallback == nil {
			lo, hi := globalTLSRange(s)
			ftls := withClientValidation(downstreamTLSContextFor(s, dag.SecretName(svh.FallbackCertificate), lo, hi, chainALPN...), svh.ClientValidation)
			opts := hcmOptions{fallback: true, websockets: l.EnableWebsockets, settings: s, forwardClientCert: forward, unpacked: u}
			if svh.Authorization != nil {
				opts.extraFilters = append(opts.extraFilters, extAuthzFilter(svh.Authorization))
			}
			fallback = &listenerv3.FilterChain{
				Name:             "fallback-certificate",
				FilterChainMatch: &listenerv3.FilterChainMatch{TransportProtocol: "tls"},
				Filters:          []*listenerv3.Filter{httpConnectionManagerWith(l.Name, fallbackRouteConfigName(l), opts)},
				TransportSocket: &corev3.TransportSocket{
					Name:       listenerTLSTransportSocketName,
					ConfigType: &corev3.TransportSocket_TypedConfig{TypedConfig: mustAny(ftls)},
				},
			}
		}
	}
	// Chains without server names (the fallback, "*") come last.
	if fallback != nil {
		chains = append(chains, fallback)
	}
	sort.SliceStable(chains, func(i, j int) bool {
		a, b := chains[i].GetFilterChainMatch().GetServerNames(), chains[j].GetFilterChainMatch().GetServerNames()
		return len(a) > 0 && len(b) == 0
	})
	return chains
}

// secureFilterChain is the SNI filter chain of svh on l: a TCP proxy or an
// HTTP connection manager behind the virtual host's TLS context. It reads
// nothing of svh's routes (see Reuse.filterChain).
func secureFilterChain(l *dag.Listener, svh *dag.SecureVirtualHost, s *config.Settings, alpn []string, forward *dag.ForwardClientCert, u *Unpacked, p *hcmPacker) *listenerv3.FilterChain {
	var filter *listenerv3.Filter
	if svh.TCPProxy != nil {
		// No ALPN: the backend negotiates protocols in its ServerHello.
		filter = tcpProxyFilterWith(l.Name, svh.TCPProxy, hcmAccessLogs(s, true))
	} else {
		opts := hcmOptions{secure: true, websockets: l.EnableWebsockets, settings: s, forwardClientCert: forward, unpacked: u, packer: p}
		if f := jwtAuthnFilter(svh.JWTProviders); f != nil {
			opts.extraFilters = append(opts.extraFilters, f)
		}
		if svh.Authorization != nil {
			opts.extraFilters = append(opts.extraFilters, extAuthzFilter(svh.Authorization))
		}
		filter = httpConnectionManagerWith(l.Name, secureRouteConfigName(l, svh), opts)
	}
	var tls *tlsv3.DownstreamTlsContext
	if svh.Secret != nil { // nil for TLS passthrough
		lo, hi := vhostTLSRange(s, svh.MinTLSVersion, svh.MaxTLSVersion)
		tls = withClientValidation(downstreamTLSContextFor(s, dag.SecretName(svh.Secret), lo, hi, alpn...), svh.ClientValidation)
	}
	fc := sniFilterChain(svh.Name, tls, filter)
	if tls != nil {
		u.remember(fc.GetTransportSocket().GetTypedConfig(), tls)
	}
	return fc
}

// withClientValidation adds a virtual host's client certificate
// validation, if any, to ctx.
func withClientValidation(ctx *tlsv3.DownstreamTlsContext, cv *dag.ClientValidation) *tlsv3.DownstreamTlsContext {
	if cv == nil {
		return ctx
	}
	return withDownstreamClientValidation(ctx, downstreamClientValidation{
		CACertificate: cv.CACert, CRL: cv.CRL, SkipClientCertValidation: cv.SkipValidation,
		OnlyVerifyLeafCertCRL: cv.OnlyVerifyLeafCertCRL, OptionalClientCertificate: cv.Optional,
	})
}

// tcpProxyFilter forwards a connection to the proxy's clusters. Envoy's
// TCP weighted clusters cannot carry a zero weight, so zero-weight clusters
// are dropped unless all are zero, in which case all get weight 1.
func tcpProxyFilter(statPrefix string, p *dag.TCPProxy) *listenerv3.Filter {
	return tcpProxyFilterWith(statPrefix, p, []*accesslogv3.AccessLog{hcmStdoutAccessLog()})
}

// tcpProxyFilterWith is tcpProxyFilter with the given access logs.
func tcpProxyFilterWith(statPrefix string, p *dag.TCPProxy, logs []*accesslogv3.AccessLog) *listenerv3.Filter {
	tp := &tcpproxyv3.TcpProxy{
		StatPrefix:  statPrefix,
		AccessLog:   logs,
		IdleTimeout: durationpb.New(9001 * time.Second),
	}
	var keep []*dag.Cluster
	for _, c := range p.Clusters {
		if c.Weight > 0 {
			keep = append(keep, c)
		}
	}
	if len(keep) == 0 {
		keep = p.Clusters
	}
	if len(keep) == 1 {
		tp.ClusterSpecifier = &tcpproxyv3.TcpProxy_Cluster{Cluster: dag.ClusterName(keep[0])}
	} else {
		wc := &tcpproxyv3.TcpProxy_WeightedCluster{}
		for _, c := range keep {
			wc.Clusters = append(wc.Clusters, &tcpproxyv3.TcpProxy_WeightedCluster_ClusterWeight{Name: dag.ClusterName(c), Weight: max(c.Weight, 1)})
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
