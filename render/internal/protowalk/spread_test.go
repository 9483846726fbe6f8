package protowalk

import (
	"fmt"
	"testing"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"google.golang.org/protobuf/proto"
)

// ValidateSpread decides what ValidateOne decides, with the same error,
// for long lists checked apart, lists nested in them, and a problem
// outside the list; it reads the message and leaves it as it was.
func TestValidateSpreadAgreesWithValidateOne(t *testing.T) {
	vhost := func(i, routes int) *routev3.VirtualHost {
		vh := &routev3.VirtualHost{Name: fmt.Sprintf("vh-%d", i), Domains: []string{fmt.Sprintf("h%d.example.com", i)}}
		for j := range routes {
			vh.Routes = append(vh.Routes, &routev3.Route{
				Match:  &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: fmt.Sprintf("/p%d", j)}},
				Action: &routev3.Route_DirectResponse{DirectResponse: &routev3.DirectResponseAction{Status: 200}},
			})
		}
		return vh
	}
	routeConfig := func(vhosts, routes int) *routev3.RouteConfiguration {
		rc := &routev3.RouteConfiguration{Name: "ingress_http"}
		for i := range vhosts {
			rc.VirtualHosts = append(rc.VirtualHosts, vhost(i, routes))
		}
		return rc
	}
	listener := func(chains int) *listenerv3.Listener {
		l := &listenerv3.Listener{Name: "ingress_https"}
		for i := range chains {
			l.FilterChains = append(l.FilterChains, &listenerv3.FilterChain{Name: fmt.Sprintf("fc-%d", i)})
		}
		return l
	}
	for _, tc := range []struct {
		name  string
		build func() proto.Message
		valid bool
	}{
		{"valid hosts", func() proto.Message { return routeConfig(200, 2) }, true},
		{"short list", func() proto.Message { rc := routeConfig(3, 1); rc.VirtualHosts[1].Domains = nil; return rc }, false},
		{"one bad host", func() proto.Message { rc := routeConfig(200, 2); rc.VirtualHosts[150].Domains = nil; return rc }, false},
		{"two bad hosts", func() proto.Message {
			rc := routeConfig(200, 2)
			rc.VirtualHosts[70].Name, rc.VirtualHosts[190].Domains = "", nil
			return rc
		}, false},
		{"bad outside the list", func() proto.Message {
			rc := routeConfig(200, 1)
			rc.RequestHeadersToAdd = []*corev3.HeaderValueOption{{}}
			return rc
		}, false},
		{"valid routes of one host", func() proto.Message { return routeConfig(1, 500) }, true},
		{"bad route of one host", func() proto.Message { rc := routeConfig(1, 500); rc.VirtualHosts[0].Routes[321].Match = nil; return rc }, false},
		{"valid filter chains", func() proto.Message { return listener(300) }, true},
		{"bad filter chain", func() proto.Message {
			l := listener(300)
			l.FilterChains[222].Filters = []*listenerv3.Filter{{}}
			return l
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.build()
			before := proto.Clone(m)
			want, got := ValidateOne(m), ValidateSpread(m)
			if (want == nil) != tc.valid {
				t.Fatalf("ValidateOne = %v; the case expects valid=%v", want, tc.valid)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("ValidateSpread = %v\nwant ValidateOne's %v", got, want)
			}
			if !proto.Equal(before, m) {
				t.Error("ValidateSpread changed the message")
			}
		})
	}
}
