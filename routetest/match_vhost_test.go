package routetest

import (
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
)

// Virtual host selection in the documented order: exact, suffix
// wildcards (longest first), prefix wildcards (longest first), then "*";
// wildcards never match the empty string; case-insensitive; the port is
// ignored only with ignore_port_in_host_matching.
func TestFindVirtualHost(t *testing.T) {
	rc := &routev3.RouteConfiguration{
		Name:                     "rc",
		IgnorePortInHostMatching: true,
		VirtualHosts: []*routev3.VirtualHost{
			{Name: "any", Domains: []string{"*"}},
			{Name: "prefix-short", Domains: []string{"foo.*"}},
			{Name: "prefix-long", Domains: []string{"foo.bar.*"}},
			{Name: "suffix-short", Domains: []string{"*.com"}},
			{Name: "suffix-long", Domains: []string{"*.example.com"}},
			{Name: "suffix-dash", Domains: []string{"*-bar.foo.com"}},
			{Name: "exact", Domains: []string{"www.example.com", "Mixed.Example.com"}},
		},
	}
	tests := []struct {
		host, want string
	}{
		{"www.example.com", "exact"},
		{"WWW.EXAMPLE.COM", "exact"},
		{"mixed.example.com", "exact"},
		{"www.example.com:8080", "exact"},
		{"api.example.com", "suffix-long"},
		{"a.b.example.com", "suffix-long"},
		{"example.com", "suffix-short"},        // *.example.com needs a label
		{"baz-bar.foo.com", "suffix-dash"},     // documented example
		{"-bar.foo.com", "suffix-short"},       // the wildcard does not match ""
		{"foo.bar.com", "suffix-short"},        // suffix wildcards before prefix ones
		{"foo.bar.org", "prefix-long"},         // longest prefix wildcard
		{"foo.org", "prefix-short"},            //
		{"foo.", "any"},                        // foo.* does not match "" either
		{"other.org", "any"},                   //
		{"[2001:db8::1]:443", "any"},           // IPv6 literal, port stripped
		{"www.example.com.", "any"},            // no trailing-dot folding
		{"foo.bar.example.com", "suffix-long"}, // suffix beats prefix
		{"www.example.com:443", "exact"},       //
		{"www.example.comx", "any"},            // suffixes are whole
	}
	for _, tt := range tests {
		m, msg := findVirtualHost(rc, tt.host)
		got := "none"
		if m.vhost != nil {
			got = m.vhost.GetName()
		}
		if got != tt.want {
			t.Errorf("%s: virtual host %s, want %s (%s)", tt.host, got, tt.want, msg)
		}
	}
}

func TestFindVirtualHostPortMatters(t *testing.T) {
	rc := &routev3.RouteConfiguration{VirtualHosts: []*routev3.VirtualHost{
		{Name: "with-port", Domains: []string{"a.com:8080"}},
		{Name: "plain", Domains: []string{"a.com"}},
	}}
	for host, want := range map[string]string{"a.com:8080": "with-port", "a.com": "plain", "a.com:9090": "none"} {
		m, _ := findVirtualHost(rc, host)
		got := "none"
		if m.vhost != nil {
			got = m.vhost.GetName()
		}
		if got != want {
			t.Errorf("without ignore_port_in_host_matching, %s: %s, want %s", host, got, want)
		}
	}
	rc.IgnorePortInHostMatching = true
	if m, _ := findVirtualHost(rc, "a.com:9090"); m.vhost.GetName() != "plain" {
		t.Errorf("with ignore_port_in_host_matching, a.com:9090 went to %v, want plain", m.vhost.GetName())
	}
}

func TestNoVirtualHost(t *testing.T) {
	rc := &routev3.RouteConfiguration{Name: "rc", VirtualHosts: []*routev3.VirtualHost{{Name: "a", Domains: []string{"a.com"}}}}
	if m, msg := findVirtualHost(rc, "b.com"); m.vhost != nil || msg == "" {
		t.Errorf("b.com matched %v (%s), want none with a reason", m.vhost.GetName(), msg)
	}
}
