package routetest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
)

// tlsInspectorName is the listener filter that reads the SNI and detects
// TLS; without it a listener sees neither.
const tlsInspectorName = "envoy.filters.listener.tls_inspector"

// bindPort is the port a listener binds.
func bindPort(l *listenerv3.Listener) int {
	return int(l.GetAddress().GetSocketAddress().GetPortValue())
}

// defaultPort is the port a client connects to when it names none.
func defaultPort(tls bool) int {
	if tls {
		return 443
	}
	return 80
}

// wantsTLS guesses the scheme of a request that does not say: https when
// it has an SNI or goes to a usual TLS port, else http.
func wantsTLS(q *request, port int) bool {
	switch q.Scheme {
	case "https":
		return true
	case "http":
		return false
	}
	return q.SNI != nil && *q.SNI != "" || port == 443 || port == 8443
}

// findListener picks the listener a client reaches. A listener named in
// the request wins. Otherwise, by port, in this order: a Gateway listener
// named for the port ("http-80", "https-443": Contour names Gateway
// listeners by their Gateway port), a listener bound to the port, and for
// ports below 1024 a listener bound to port+8000 (Contour binds 8080 and
// 8443 and a Service maps 80 and 443 onto them). Among candidates of one
// rank, one that serves the request's scheme is preferred.
func (c *Config) findListener(q *request) (l *listenerv3.Listener, tls bool, port int, msg string) {
	if q.Listener != "" {
		for _, l := range c.listeners {
			if l.GetName() == q.Listener {
				tls := q.Scheme == "https" || q.Scheme == "" && (q.SNI != nil && *q.SNI != "" || tlsOnly(l))
				return l, tls, q.Port, fmt.Sprintf("listener %s (%s) named in the request", l.GetName(), listenerAddress(l))
			}
		}
		return nil, false, q.Port, fmt.Sprintf("no listener named %q (listeners: %s)", q.Listener, strings.Join(c.listenerNames(), ", "))
	}
	port = q.Port
	portFrom := "request"
	if port == 0 {
		if port = authorityPort(q.Authority); port != 0 {
			portFrom = "authority"
		}
	}
	tls = wantsTLS(q, port)
	if port == 0 {
		port = defaultPort(tls)
		portFrom = q.schemeOr(tls) + " default"
	}
	ranks, found := c.listenersFor(port)
	if !found && portFrom == "authority" {
		// A Host may carry a port no listener has (a client behind a
		// proxy, the Gateway API suite's "very.specific.com:1234" sent
		// to port 80): with no --port, the client is taken to connect
		// to the scheme's default port, as for a Host without one, and
		// the decision says so.
		def := defaultPort(tls)
		if alt, ok := c.listenersFor(def); ok {
			ranks, portFrom = alt, fmt.Sprintf("%s default: no listener for the authority's port %d; --port chooses", q.schemeOr(tls), port)
			port = def
		}
	}
	var fallback *listenerv3.Listener
	for _, rank := range ranks {
		for _, l := range rank {
			if serves(l, tls) {
				return l, tls, port, fmt.Sprintf("listener %s (%s) serves %s port %d (%s)", l.GetName(), listenerAddress(l), q.schemeOr(tls), port, portFrom)
			}
			if fallback == nil {
				fallback = l
			}
		}
	}
	if fallback != nil {
		return fallback, tls, port, fmt.Sprintf("listener %s (%s) listens for port %d (%s) but has no filter chain for %s", fallback.GetName(), listenerAddress(fallback), port, portFrom, q.schemeOr(tls))
	}
	return nil, tls, port, fmt.Sprintf("no listener for port %d (%s): the connection is refused (listeners: %s)", port, portFrom, strings.Join(c.listenerNames(), ", "))
}

// listenersFor ranks the listeners a client connecting to port may
// reach (see findListener); found says whether there is any.
func (c *Config) listenersFor(port int) (ranks [3][]*listenerv3.Listener, found bool) {
	for _, l := range c.listeners {
		switch {
		case strings.HasSuffix(l.GetName(), "-"+strconv.Itoa(port)):
			ranks[0] = append(ranks[0], l)
		case bindPort(l) == port:
			ranks[1] = append(ranks[1], l)
		case port < 1024 && bindPort(l) == port+8000:
			ranks[2] = append(ranks[2], l)
		default:
			continue
		}
		found = true
	}
	return ranks, found
}

func (q *request) schemeOr(tls bool) string {
	if tls {
		return "https"
	}
	return "http"
}

func (c *Config) listenerNames() []string {
	var names []string
	for _, l := range c.listeners {
		names = append(names, fmt.Sprintf("%s on %d", l.GetName(), bindPort(l)))
	}
	return names
}

func listenerAddress(l *listenerv3.Listener) string {
	sa := l.GetAddress().GetSocketAddress()
	return fmt.Sprintf("%s:%d", sa.GetAddress(), sa.GetPortValue())
}

// serves says whether some filter chain of l could take a TLS (or a plain)
// connection.
func serves(l *listenerv3.Listener, tls bool) bool {
	chains := l.GetFilterChains()
	if d := l.GetDefaultFilterChain(); d != nil {
		chains = append(slices.Clip(chains), d)
	}
	for _, fc := range chains {
		if chainTakesTLS(fc) == tls {
			return true
		}
	}
	return false
}

// tlsOnly says whether every filter chain of l needs TLS.
func tlsOnly(l *listenerv3.Listener) bool {
	return serves(l, true) && !serves(l, false)
}

// chainTakesTLS says whether a chain is for TLS connections: it matches on
// SNI or on the tls transport protocol, or terminates TLS itself.
func chainTakesTLS(fc *listenerv3.FilterChain) bool {
	m := fc.GetFilterChainMatch()
	return m.GetTransportProtocol() == "tls" || len(m.GetServerNames()) > 0 || fc.GetTransportSocket() != nil
}

func hasTLSInspector(l *listenerv3.Listener) bool {
	for _, f := range l.GetListenerFilters() {
		if f.GetName() == tlsInspectorName {
			return true
		}
	}
	return false
}

// chainMatch is the filter chain chosen for a connection.
type chainMatch struct {
	chain *listenerv3.FilterChain
	index int // in filter_chains; -1 for the default filter chain
}

func (m chainMatch) String() string {
	if m.index < 0 {
		return "default filter chain"
	}
	s := fmt.Sprintf("filter chain #%d", m.index)
	fm := m.chain.GetFilterChainMatch()
	var crit []string
	if n := fm.GetServerNames(); len(n) > 0 {
		crit = append(crit, "server_names "+strings.Join(n, ","))
	}
	if tp := fm.GetTransportProtocol(); tp != "" {
		crit = append(crit, "transport_protocol "+tp)
	}
	if len(crit) > 0 {
		s += " (" + strings.Join(crit, ", ") + ")"
	}
	return s
}

// selectFilterChain picks a filter chain the way Envoy's FilterChainMatch
// documentation describes: criteria in order (destination port, server
// name, transport protocol, application protocols), each step keeping the
// most specific chains that match. The SNI and the tls transport protocol
// are only known when the listener has the TLS inspector. Criteria contourc
// knows nothing about (destination and source addresses) are not pruned on.
func selectFilterChain(l *listenerv3.Listener, q *request) (chainMatch, string) {
	sni, transport := "", "raw_buffer"
	if q.tls && hasTLSInspector(l) {
		sni, transport = q.sni, "tls"
	}
	var cands []int
	for i := range l.GetFilterChains() {
		cands = append(cands, i)
	}
	fcm := func(i int) *listenerv3.FilterChainMatch { return l.GetFilterChains()[i].GetFilterChainMatch() }
	keep := func(pred func(*listenerv3.FilterChainMatch) bool) []int {
		var out []int
		for _, i := range cands {
			if pred(fcm(i)) {
				out = append(out, i)
			}
		}
		return out
	}
	// Most specific first, falling back to chains without the criterion.
	prune := func(specific, unset func(*listenerv3.FilterChainMatch) bool) {
		if s := keep(specific); len(s) > 0 {
			cands = s
			return
		}
		cands = keep(unset)
	}
	port := uint32(bindPort(l))
	prune(func(m *listenerv3.FilterChainMatch) bool {
		return m.GetDestinationPort() != nil && m.GetDestinationPort().GetValue() == port
	},
		func(m *listenerv3.FilterChainMatch) bool { return m.GetDestinationPort() == nil })
	how := ""
	if sni != "" {
		names := serverNameCandidates(sni)
		found := false
		for _, name := range names {
			if s := keep(func(m *listenerv3.FilterChainMatch) bool { return slices.Contains(lowerAll(m.GetServerNames()), name) }); len(s) > 0 {
				cands, found = s, true
				how = fmt.Sprintf("server name %q matches SNI %q", name, sni)
				break
			}
		}
		if !found {
			cands = keep(func(m *listenerv3.FilterChainMatch) bool { return len(m.GetServerNames()) == 0 })
			how = fmt.Sprintf("no server_names match SNI %q", sni)
		}
	} else {
		cands = keep(func(m *listenerv3.FilterChainMatch) bool { return len(m.GetServerNames()) == 0 })
		how = "no SNI"
		if q.tls && !hasTLSInspector(l) {
			how = "no TLS inspector on the listener, so no SNI"
		}
	}
	prune(func(m *listenerv3.FilterChainMatch) bool { return m.GetTransportProtocol() == transport },
		func(m *listenerv3.FilterChainMatch) bool { return m.GetTransportProtocol() == "" })
	// The client's ALPN list is unknown: chains that do not ask for one are
	// preferred, the others kept only when nothing else is left.
	if s := keep(func(m *listenerv3.FilterChainMatch) bool { return len(m.GetApplicationProtocols()) == 0 }); len(s) > 0 {
		cands = s
	}
	how += ", transport " + transport
	if len(cands) > 0 {
		m := chainMatch{chain: l.GetFilterChains()[cands[0]], index: cands[0]}
		return m, fmt.Sprintf("%s: %s", m, how)
	}
	if d := l.GetDefaultFilterChain(); d != nil {
		return chainMatch{chain: d, index: -1}, "default filter chain: " + how + " and no filter chain matches"
	}
	return chainMatch{}, fmt.Sprintf("no filter chain of %s matches (%s): Envoy closes the connection", l.GetName(), how)
}

// serverNameCandidates lists what an SNI is looked up as, most specific
// first: the name itself, then wildcards for each parent domain
// (www.example.com: *.example.com, then *.com).
func serverNameCandidates(sni string) []string {
	out := []string{sni}
	for rest := sni; ; {
		i := strings.IndexByte(rest, '.')
		if i < 0 {
			break
		}
		rest = rest[i+1:]
		if rest == "" {
			break
		}
		out = append(out, "*."+rest)
	}
	return out
}

func lowerAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.ToLower(s)
	}
	return out
}
