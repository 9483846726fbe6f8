package gatewayapi

import (
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/contourc/contourc/translate/dag/index"
)

func hostnamePtr(h string) *gatewayv1.Hostname { x := gatewayv1.Hostname(h); return &x }

func listener(name string, port int32, proto gatewayv1.ProtocolType, host string) gatewayv1.Listener {
	l := gatewayv1.Listener{Name: gatewayv1.SectionName(name), Port: gatewayv1.PortNumber(port), Protocol: proto}
	if host != "" {
		l.Hostname = hostnamePtr(host)
	}
	return l
}

func TestValidateListeners(t *testing.T) {
	tests := []struct {
		name      string
		listeners []gatewayv1.Listener
		invalid   map[string]string // listener -> Type/Reason
		ports     []string
	}{
		{"one per protocol", []gatewayv1.Listener{
			listener("http", 80, gatewayv1.HTTPProtocolType, ""),
			listener("https", 443, gatewayv1.HTTPSProtocolType, ""),
			listener("tcp", 9000, gatewayv1.TCPProtocolType, ""),
		}, nil, []string{"http-80:8080", "https-443:8443", "tcp-9000:17000"}},
		{"TLS protocols share a port", []gatewayv1.Listener{
			listener("a", 443, gatewayv1.HTTPSProtocolType, "a.example.com"),
			listener("b", 443, gatewayv1.TLSProtocolType, "b.example.com"),
			listener("c", 443, contourHTTPSProtocol, "c.example.com"),
		}, nil, []string{"https-443:8443"}},
		{"protocol conflict: the later listener loses", []gatewayv1.Listener{
			listener("http", 80, gatewayv1.HTTPProtocolType, ""),
			listener("tcp", 80, gatewayv1.TCPProtocolType, ""),
		}, map[string]string{"tcp": "Conflicted/ProtocolConflict"}, []string{"http-80:8080"}},
		{"hostname conflict", []gatewayv1.Listener{
			listener("a", 80, gatewayv1.HTTPProtocolType, "x.example.com"),
			listener("b", 80, gatewayv1.HTTPProtocolType, "x.example.com"),
		}, map[string]string{"b": "Conflicted/HostnameConflict"}, []string{"http-80:8080"}},
		{"ports mapping to the same container port", []gatewayv1.Listener{
			listener("a", 57536, gatewayv1.HTTPProtocolType, ""),
			listener("b", 58559, gatewayv1.HTTPProtocolType, ""),
		}, map[string]string{"b": "Accepted/PortUnavailable"}, []string{"http-57536:1024"}},
		{"unsupported protocol", []gatewayv1.Listener{
			listener("udp", 53, gatewayv1.UDPProtocolType, ""),
		}, map[string]string{"udp": "Accepted/UnsupportedProtocol"}, nil},
		{"IP hostname", []gatewayv1.Listener{
			listener("ip", 80, gatewayv1.HTTPProtocolType, "10.0.0.1"),
		}, map[string]string{"ip": "Programmed/Invalid"}, nil},
		{"low port wraps above the privileged range", []gatewayv1.Listener{
			listener("high", 58000, gatewayv1.HTTPProtocolType, ""),
		}, nil, []string{"http-58000:1488"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := validateListeners(tt.listeners)
			got := map[string]string{}
			for name, c := range v.invalid {
				got[name] = c.Type + "/" + c.Reason
			}
			if len(got) != len(tt.invalid) {
				t.Errorf("invalid listeners %v, want %v", got, tt.invalid)
			}
			for name, want := range tt.invalid {
				if got[name] != want {
					t.Errorf("listener %s: %q, want %q", name, got[name], want)
				}
			}
			var ports []string
			for _, p := range v.ports {
				ports = append(ports, fmt.Sprintf("%s:%d", p.name, p.containerPort))
			}
			if strings.Join(ports, ",") != strings.Join(tt.ports, ",") {
				t.Errorf("ports %v, want %v", ports, tt.ports)
			}
		})
	}
}

func TestRouteHosts(t *testing.T) {
	tests := []struct {
		name     string
		route    []string
		listener string
		others   []string
		want     string
	}{
		{"no hostnames, no listener hostname", nil, "", nil, "*"},
		{"no route hostnames take the listener's", nil, "a.example.com", nil, "a.example.com"},
		{"exact match", []string{"a.example.com"}, "a.example.com", nil, "a.example.com"},
		{"listener wildcard admits one or more labels", []string{"a.example.com", "b.c.example.com", "example.com"}, "*.example.com", nil, "a.example.com,b.c.example.com"},
		{"route wildcard takes the listener hostname", []string{"*.example.com"}, "a.example.com", nil, "a.example.com"},
		{"no intersection", []string{"a.example.org"}, "a.example.com", nil, ""},
		{"a hostname another listener matches exactly is left to it", []string{"a.example.com", "b.example.com"}, "", []string{"a.example.com"}, "b.example.com"},
		{"a more specific wildcard elsewhere wins", []string{"a.foo.example.com"}, "*.example.com", []string{"*.foo.example.com"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hs []gatewayv1.Hostname
			for _, h := range tt.route {
				hs = append(hs, gatewayv1.Hostname(h))
			}
			got, errs := routeHosts(hs, tt.listener, tt.others)
			if len(errs) != 0 {
				t.Fatal(errs)
			}
			if strings.Join(got, ",") != tt.want {
				t.Errorf("hosts %v, want %q", got, tt.want)
			}
		})
	}
	if _, errs := routeHosts([]gatewayv1.Hostname{"1.2.3.4"}, "", nil); len(errs) != 1 {
		t.Errorf("an IP route hostname gave %d errors, want 1", len(errs))
	}
}

func TestReferenceGranted(t *testing.T) {
	grant := func(ns, fromNS, fromKind, toKind, toName string) *gatewayv1.ReferenceGrant {
		rg := &gatewayv1.ReferenceGrant{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "g"}}
		rg.Spec.From = []gatewayv1.ReferenceGrantFrom{{Group: gatewayv1.GroupName, Kind: gatewayv1.Kind(fromKind), Namespace: gatewayv1.Namespace(fromNS)}}
		to := gatewayv1.ReferenceGrantTo{Group: "", Kind: gatewayv1.Kind(toKind)}
		if toName != "" {
			n := gatewayv1.ObjectName(toName)
			to.Name = &n
		}
		rg.Spec.To = []gatewayv1.ReferenceGrantTo{to}
		return rg
	}
	target := types.NamespacedName{Namespace: "backends", Name: "svc"}
	tests := []struct {
		name  string
		grant *gatewayv1.ReferenceGrant
		want  bool
	}{
		{"all Services of the namespace", grant("backends", "apps", "HTTPRoute", "Service", ""), true},
		{"the named Service", grant("backends", "apps", "HTTPRoute", "Service", "svc"), true},
		{"another Service", grant("backends", "apps", "HTTPRoute", "Service", "other"), false},
		{"grant in the wrong namespace", grant("apps", "apps", "HTTPRoute", "Service", ""), false},
		{"another route kind", grant("backends", "apps", "GRPCRoute", "Service", ""), false},
		{"another source namespace", grant("backends", "other", "HTTPRoute", "Service", ""), false},
		{"another target kind", grant("backends", "apps", "HTTPRoute", "Secret", ""), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Processor{Index: &index.Index{ReferenceGrants: []*gatewayv1.ReferenceGrant{tt.grant}}}
			if got := p.referenceGranted(gatewayv1.GroupName, "HTTPRoute", "apps", "", "Service", target); got != tt.want {
				t.Errorf("granted = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSortedRoutes checks Contour's route order, by creation time and then
// by "namespace/name" as a string, against a plain sort on random routes,
// with equal times and names that order differently field by field.
func TestSortedRoutes(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	parts := []string{"a", "a-b", "a.b", "ab", "b", "a/"}
	var routes []*gatewayv1.HTTPRoute
	for range 300 {
		r := &gatewayv1.HTTPRoute{}
		r.Namespace, r.Name = parts[rng.Intn(len(parts))], parts[rng.Intn(len(parts))]
		r.CreationTimestamp = metav1.NewTime(base.Add(time.Duration(rng.Intn(4)) * time.Second))
		routes = append(routes, r)
	}
	want := slices.Clone(routes)
	sort.SliceStable(want, func(i, j int) bool {
		ti, tj := want[i].CreationTimestamp, want[j].CreationTimestamp
		if !ti.Equal(&tj) {
			return ti.Before(&tj)
		}
		return want[i].Namespace+"/"+want[i].Name < want[j].Namespace+"/"+want[j].Name
	})
	got := sortedRoutes(routes)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("route %d: %s/%s at %v, want %s/%s at %v", i, got[i].Namespace, got[i].Name, got[i].CreationTimestamp, want[i].Namespace, want[i].Name, want[i].CreationTimestamp)
		}
	}
}

// TestValidHostname compares validHostname, which accepts plain DNS names
// without a regular expression, with the checks it falls back to, on
// random names, addresses and lengths around the limit.
func TestValidHostname(t *testing.T) {
	names := []string{"", "a", "app-00001.example.com", "1.2.3.4", "1.2.3", "::1", "fe80::1", "*.example.com", "a..b", ".a", "a.",
		"-a", "a-", "A.example.com", "a_b", strings.Repeat("a", 253), strings.Repeat("a", 254), strings.Repeat("a", 70) + ".com",
		strings.Repeat("ab.", 84) + "c", "é.com", "0a", "a0", "1-1.com"}
	rng := rand.New(rand.NewSource(9))
	pieces := []string{"a", "z", "0", "9", "-", ".", "*", "A", "_", ":", "é", "example", "1"}
	for range 20000 {
		var b strings.Builder
		for range 1 + rng.Intn(8) {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		names = append(names, b.String())
	}
	plain := 0
	for _, h := range names {
		got, want := validHostname(h), checkHostname(h)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("validHostname(%q) = %v, want %v", h, got, want)
		}
		if plainDNSName(h) {
			plain++
		}
	}
	if plain < 1000 {
		t.Fatalf("only %d names took the fast path: the test compares little", plain)
	}
}
