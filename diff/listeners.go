package diff

import (
	"fmt"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"

	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
)

// diffListeners compares listeners by name. A listener's filter chains are
// matched by what they match (SNI names and the like) rather than by
// position, since adding a TLS virtual host inserts a chain in the middle.
func diffListeners(old, new []*listenerv3.Listener) []ListenerChange {
	olds, news := byName(old, (*listenerv3.Listener).GetName), byName(new, (*listenerv3.Listener).GetName)
	var out []ListenerChange
	for _, name := range unionKeys(olds, news) {
		o, n := olds[name], news[name]
		switch {
		case o == nil:
			out = append(out, ListenerChange{Op: Added, Name: name, Address: listenerAddress(n)})
		case n == nil:
			out = append(out, ListenerChange{Op: Removed, Name: name, Address: listenerAddress(o)})
		default:
			ch := ListenerChange{
				Op: Changed, Name: name, Address: listenerAddress(n),
				Fields:       fieldDiff(withoutField(o, "filter_chains"), withoutField(n, "filter_chains")),
				FilterChains: diffFilterChains(o.GetFilterChains(), n.GetFilterChains()),
			}
			if len(ch.Fields)+len(ch.FilterChains) > 0 {
				out = append(out, ch)
			}
		}
	}
	return out
}

func diffFilterChains(old, new []*listenerv3.FilterChain) []FilterChainDiff {
	olds, news := chainsByMatch(old), chainsByMatch(new)
	var out []FilterChainDiff
	for _, key := range unionKeys(olds, news) {
		o, n := olds[key], news[key]
		switch {
		case o == nil:
			out = append(out, FilterChainDiff{Op: Added, Match: key})
		case n == nil:
			out = append(out, FilterChainDiff{Op: Removed, Match: key})
		default:
			if f := fieldDiff(o, n); len(f) > 0 {
				out = append(out, FilterChainDiff{Op: Changed, Match: key, Fields: f})
			}
		}
	}
	return out
}

// chainsByMatch indexes filter chains by describeChain; two chains that
// describe alike keep a #2 suffix.
func chainsByMatch(chains []*listenerv3.FilterChain) map[string]*listenerv3.FilterChain {
	m := map[string]*listenerv3.FilterChain{}
	for _, fc := range chains {
		key := describeChain(fc)
		for i := 2; m[key] != nil; i++ {
			key = describeChain(fc) + " #" + strconv.Itoa(i)
		}
		m[key] = fc
	}
	return m
}

// describeChain says what a filter chain matches, e.g. "sni a.example.com"
// or "tls", "default" when it matches everything.
func describeChain(fc *listenerv3.FilterChain) string {
	m := fc.GetFilterChainMatch()
	var parts []string
	if n := fc.GetName(); n != "" {
		parts = append(parts, "name "+n)
	}
	if len(m.GetServerNames()) > 0 {
		parts = append(parts, "sni "+strings.Join(m.GetServerNames(), ","))
	}
	if p := m.GetTransportProtocol(); p != "" {
		parts = append(parts, p)
	}
	if len(m.GetApplicationProtocols()) > 0 {
		parts = append(parts, "alpn "+strings.Join(m.GetApplicationProtocols(), ","))
	}
	if p := m.GetDestinationPort(); p != nil {
		parts = append(parts, fmt.Sprintf("port %d", p.GetValue()))
	}
	if len(parts) == 0 && m != nil {
		// Some other criterion: print it whole rather than hide it.
		if s := formatMessage(m.ProtoReflect()); s != "{}" {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return "default"
	}
	return strings.Join(parts, " ")
}

func listenerAddress(l *listenerv3.Listener) string {
	sa := l.GetAddress().GetSocketAddress()
	if sa == nil {
		return ""
	}
	return net.JoinHostPort(sa.GetAddress(), strconv.Itoa(int(sa.GetPortValue())))
}

// routeConfigListeners maps each route configuration name to the sorted
// names of the listeners whose HTTP connection managers fetch it by RDS.
func routeConfigListeners(listeners []*listenerv3.Listener) map[string][]string {
	out := map[string][]string{}
	for _, l := range listeners {
		chains := l.GetFilterChains()
		if d := l.GetDefaultFilterChain(); d != nil {
			chains = append(chains[:len(chains):len(chains)], d)
		}
		for _, fc := range chains {
			for _, f := range fc.GetFilters() {
				var hcm hcmv3.HttpConnectionManager
				if f.GetTypedConfig().UnmarshalTo(&hcm) != nil {
					continue
				}
				if name := hcm.GetRds().GetRouteConfigName(); name != "" && !slices.Contains(out[name], l.GetName()) {
					out[name] = append(out[name], l.GetName())
				}
			}
		}
	}
	for _, names := range out {
		sort.Strings(names)
	}
	return out
}
