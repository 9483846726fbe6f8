package routetest

import (
	"testing"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/contourc/contourc/translate"
)

func listener(name string, port uint32, tlsInspector bool, chains ...*listenerv3.FilterChain) *listenerv3.Listener {
	l := &listenerv3.Listener{
		Name: name,
		Address: &corev3.Address{Address: &corev3.Address_SocketAddress{SocketAddress: &corev3.SocketAddress{
			Address: "0.0.0.0", PortSpecifier: &corev3.SocketAddress_PortValue{PortValue: port},
		}}},
		FilterChains: chains,
	}
	if tlsInspector {
		l.ListenerFilters = []*listenerv3.ListenerFilter{{Name: tlsInspectorName}}
	}
	return l
}

func chain(transport string, names ...string) *listenerv3.FilterChain {
	fc := &listenerv3.FilterChain{}
	if transport != "" || len(names) > 0 {
		fc.FilterChainMatch = &listenerv3.FilterChainMatch{TransportProtocol: transport, ServerNames: names}
	}
	return fc
}

// Filter chains by SNI, most specific first (www.example.com, then
// *.example.com, then *.com, then chains without server_names), then by
// transport protocol.
func TestSelectFilterChain(t *testing.T) {
	l := listener("https", 8443, true,
		chain("", "www.example.com"),    // #0
		chain("", "*.example.com"),      // #1
		chain("", "*.com"),              // #2
		chain("tls"),                    // #3 fallback certificate
		chain(""),                       // #4 anything else
		chain("", "a.org", "*.b.org"),   // #5
		chain("raw_buffer", "plain.io"), // #6
	)
	tests := []struct {
		name string
		tls  bool
		sni  *string
		host string
		want int // -2: none
	}{
		{"exact", true, nil, "www.example.com", 0},
		{"exact, case-insensitive", true, nil, "WWW.Example.COM", 0},
		{"wildcard", true, nil, "api.example.com", 1},
		{"deeper wildcard match", true, nil, "a.b.example.com", 1},
		{"wildcard needs a label", true, nil, "example.com", 2},
		{"top-level wildcard", true, nil, "other.com", 2},
		{"no server name matches: tls fallback", true, nil, "other.net", 3},
		{"no SNI: tls fallback", true, ptr(""), "www.example.com", 3},
		{"SNI decides, not the host", true, ptr("www.example.com"), "other.net", 0},
		{"one of several names", true, nil, "x.b.org", 5},
		{"plain http skips SNI chains and tls", false, nil, "www.example.com", 4},
		{"server name then transport: wrong transport excluded", true, nil, "plain.io", -2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := prepare(Request{Authority: tt.host, SNI: tt.sni})
			if err != nil {
				t.Fatal(err)
			}
			q.setScheme(tt.tls)
			m, msg := selectFilterChain(l, q)
			got := m.index
			if m.chain == nil {
				got = -2
			}
			if got != tt.want {
				t.Errorf("chain %d, want %d (%s)", got, tt.want, msg)
			}
		})
	}
}

func ptr(s string) *string { return &s }

func TestSelectFilterChainDefaultAndInspector(t *testing.T) {
	l := listener("l", 8443, false, chain("", "www.example.com"))
	q, _ := prepare(Request{Authority: "www.example.com"})
	q.setScheme(true)
	if m, msg := selectFilterChain(l, q); m.chain != nil {
		t.Errorf("without a TLS inspector the SNI is unknown, yet chain %d was chosen (%s)", m.index, msg)
	}
	l.DefaultFilterChain = chain("")
	if m, _ := selectFilterChain(l, q); m.chain == nil || m.index != -1 {
		t.Errorf("default filter chain not used: %+v", m)
	}
	port := listener("p", 8443, false,
		&listenerv3.FilterChain{FilterChainMatch: &listenerv3.FilterChainMatch{DestinationPort: wrapperspb.UInt32(9999)}},
		chain(""))
	if m, _ := selectFilterChain(port, q); m.index != 1 {
		t.Errorf("chain for another destination port chosen: %d", m.index)
	}
}

// Listeners: by name, then a Gateway listener named for the port, then the
// listener bound to the port, then (below 1024) the one bound to port+8000.
func TestFindListener(t *testing.T) {
	c := New(&translate.Resources{Listeners: []*listenerv3.Listener{
		listener("ingress_http", 8080, false, chain("")),
		listener("ingress_https", 8443, true, chain("", "a.com")),
		listener("http-8080", 16080, false, chain("")),
		listener("stats", 8002, false, chain("")),
	}}, nil)
	tests := []struct {
		name string
		r    Request
		want string
		tls  bool
	}{
		{"http default port 80 is 8080", Request{Authority: "a.com"}, "ingress_http", false},
		{"https default port 443 is 8443", Request{Authority: "a.com", Scheme: "https"}, "ingress_https", true},
		{"SNI implies https", Request{Authority: "a.com", SNI: ptr("a.com")}, "ingress_https", true},
		{"port 443 implies https", Request{Authority: "a.com", Port: 443}, "ingress_https", true},
		{"port from the authority", Request{Authority: "a.com:8002"}, "stats", false},
		{"Gateway port beats bind port", Request{Authority: "a.com", Port: 8080}, "http-8080", false},
		{"bind port", Request{Authority: "a.com", Port: 16080}, "http-8080", false},
		{"by name", Request{Authority: "a.com", Listener: "ingress_https"}, "ingress_https", true},
		{"by name, scheme given", Request{Authority: "a.com", Listener: "ingress_https", Scheme: "http"}, "ingress_https", false},
		{"nothing on the port", Request{Authority: "a.com", Port: 9}, "", false},
		{"unknown name", Request{Authority: "a.com", Listener: "nope"}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := prepare(tt.r)
			if err != nil {
				t.Fatal(err)
			}
			l, tls, _, msg := c.findListener(q)
			if l.GetName() != tt.want || l != nil && tls != tt.tls {
				t.Errorf("listener %q (tls %v), want %q (tls %v): %s", l.GetName(), tls, tt.want, tt.tls, msg)
			}
		})
	}
}
