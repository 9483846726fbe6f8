package routetest

import (
	"strings"
	"testing"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	rbacv3 "github.com/envoyproxy/go-control-plane/envoy/config/rbac/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	extauthzv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ext_authz/v3"
	rbacfilterv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/rbac/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tcpproxyv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/contourc/contourc/internal/prototest"
	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate"
)

// hcmChain is a filter chain holding an HTTP connection manager.
func hcmChain(t *testing.T, hcm *hcmv3.HttpConnectionManager) *listenerv3.FilterChain {
	return &listenerv3.FilterChain{Filters: []*listenerv3.Filter{{
		Name: "envoy.filters.network.http_connection_manager", ConfigType: &listenerv3.Filter_TypedConfig{TypedConfig: prototest.Any(t, hcm)},
	}}}
}

func metadata(kind, ns, name string) *corev3.Metadata {
	s, _ := structpb.NewStruct(map[string]any{metadataKind: kind, metadataNamespace: ns, metadataObjectName: name})
	return &corev3.Metadata{FilterMetadata: map[string]*structpb.Struct{routeMetadataKey: s}}
}

func clusterRoute(m *routev3.RouteMatch, cluster string) *routev3.Route {
	return &routev3.Route{Match: m, Action: &routev3.Route_Route{Route: &routev3.RouteAction{
		ClusterSpecifier: &routev3.RouteAction_Cluster{Cluster: cluster},
	}}}
}

func ipRules(t *testing.T, action rbacv3.RBAC_Action, cidr string, prefixLen uint32) *anypb.Any {
	return prototest.Any(t, &rbacfilterv3.RBACPerRoute{Rbac: &rbacfilterv3.RBAC{Rules: &rbacv3.RBAC{
		Action: action,
		Policies: map[string]*rbacv3.Policy{"ip-rules": {
			Permissions: []*rbacv3.Permission{{Rule: &rbacv3.Permission_Any{Any: true}}},
			Principals: []*rbacv3.Principal{{Identifier: &rbacv3.Principal_RemoteIp{RemoteIp: &corev3.CidrRange{
				AddressPrefix: cidr, PrefixLen: wrapperspb.UInt32(prefixLen),
			}}}},
		}},
	}}})
}

// policyConfig is one plain HTTP listener with an inline route
// configuration whose routes exercise the per-route filters.
func policyConfig(t *testing.T) *Config {
	disabled := prototest.Any(t, &extauthzv3.ExtAuthzPerRoute{Override: &extauthzv3.ExtAuthzPerRoute_Disabled{Disabled: true}})
	public := clusterRoute(matchPrefix("/public"), "c")
	public.TypedPerFilterConfig = map[string]*anypb.Any{"envoy.filters.http.ext_authz": disabled}
	office := clusterRoute(matchPrefix("/office"), "c")
	office.TypedPerFilterConfig = map[string]*anypb.Any{"envoy.filters.http.rbac": ipRules(t, rbacv3.RBAC_ALLOW, "10.0.0.0", 8)}
	blocked := clusterRoute(matchPrefix("/blocked"), "c")
	blocked.TypedPerFilterConfig = map[string]*anypb.Any{"envoy.filters.http.rbac": ipRules(t, rbacv3.RBAC_DENY, "192.0.2.0", 24)}
	rest := clusterRoute(matchPrefix("/"), "c")
	rest.Metadata = metadata("HTTPProxy", "ns", "p")
	rest.RequestHeadersToAdd = []*corev3.HeaderValueOption{{Header: &corev3.HeaderValue{Key: "x-a", Value: "1"}, AppendAction: corev3.HeaderValueOption_OVERWRITE_IF_EXISTS_OR_ADD}}
	rest.ResponseHeadersToRemove = []string{"server"}
	ra := rest.GetRoute()
	ra.Timeout = durationpb.New(0)
	ra.RetryPolicy = &routev3.RetryPolicy{RetryOn: "5xx"}
	hcm := &hcmv3.HttpConnectionManager{
		HttpFilters: []*hcmv3.HttpFilter{
			{Name: "envoy.filters.http.rbac", ConfigType: &hcmv3.HttpFilter_TypedConfig{TypedConfig: prototest.Any(t, &rbacfilterv3.RBAC{})}},
			{Name: "envoy.filters.http.ext_authz", ConfigType: &hcmv3.HttpFilter_TypedConfig{TypedConfig: prototest.Any(t, &extauthzv3.ExtAuthz{})}},
		},
		RouteSpecifier: &hcmv3.HttpConnectionManager_RouteConfig{RouteConfig: &routev3.RouteConfiguration{
			Name: "inline",
			VirtualHosts: []*routev3.VirtualHost{{
				Name: "vh", Domains: []string{"*"},
				Routes:                 []*routev3.Route{public, office, blocked, rest},
				RequestHeadersToAdd:    []*corev3.HeaderValueOption{{Header: &corev3.HeaderValue{Key: "x-vh", Value: "2"}}},
				ResponseHeadersToAdd:   []*corev3.HeaderValueOption{{Header: &corev3.HeaderValue{Key: "x-resp", Value: "3"}}},
				RequestHeadersToRemove: []string{"x-drop"},
			}},
		}},
	}
	return New(&translate.Resources{Listeners: []*listenerv3.Listener{listener("l", 8080, false, hcmChain(t, hcm))}},
		Sources{{"HTTPProxy", "ns", "p"}: loader.Source{File: "p.yaml", Line: 3}})
}

func TestIPFilterAndExtAuthz(t *testing.T) {
	c := policyConfig(t)
	tests := []struct {
		path, source string
		action       string
		ipVerdict    string
		extAuthz     string
	}{
		{"/public", "", "cluster", "", "disabled"},
		{"/other", "", "cluster", "", "enabled"},
		{"/office", "10.1.2.3", "cluster", "allowed", "enabled"},
		{"/office", "11.1.2.3", "denied", "denied", "enabled"},
		{"/office", "::ffff:10.0.0.1", "cluster", "allowed", "enabled"},
		{"/office", "", "cluster", "unknown", "enabled"},
		{"/blocked", "192.0.2.9", "denied", "denied", "enabled"},
		{"/blocked", "198.51.100.1", "cluster", "allowed", "enabled"},
	}
	for _, tt := range tests {
		d, err := c.Evaluate(Request{Authority: "x", Path: tt.path, SourceAddress: tt.source})
		if err != nil {
			t.Fatal(err)
		}
		verdict := ""
		if d.IPFilter != nil {
			verdict = d.IPFilter.Verdict
		}
		if d.Action.Kind() != tt.action || verdict != tt.ipVerdict || d.ExtAuthz != tt.extAuthz {
			t.Errorf("%s from %q: action %s, IP filter %q, ext_authz %q; want %s, %q, %q", tt.path, tt.source, d.Action, verdict, d.ExtAuthz, tt.action, tt.ipVerdict, tt.extAuthz)
		}
		if tt.action == "denied" && d.Action.Denied.Status != 403 {
			t.Errorf("%s: denied with %d, want 403", tt.path, d.Action.Denied.Status)
		}
	}
}

func TestForwardingDetails(t *testing.T) {
	d, err := policyConfig(t).Evaluate(Request{Authority: "x", Path: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	f := d.Forwarding
	if f == nil || f.Timeout != "0s" || f.Retry == nil || f.Retry.RetryOn != "5xx" || f.Retry.NumRetries != 1 {
		t.Fatalf("forwarding = %+v", f)
	}
	if d.Source == nil || d.Source.String() != "HTTPProxy ns/p (p.yaml:3)" {
		t.Errorf("source = %v", d.Source)
	}
	// Route first, then virtual host: the order Envoy applies them in.
	var set []string
	for _, h := range d.RequestHeaders.Set {
		set = append(set, h.Name+"="+h.Value+"@"+h.From)
	}
	if got := strings.Join(set, " "); got != "x-a=1@route x-vh=2@virtualHost" {
		t.Errorf("request headers set: %s", got)
	}
	if got := d.RequestHeaders.Remove; len(got) != 1 || got[0] != "x-drop" {
		t.Errorf("request headers removed: %v", got)
	}
	if r := d.ResponseHeaders; r == nil || len(r.Set) != 1 || r.Set[0].Name != "x-resp" || len(r.Remove) != 1 || r.Remove[0] != "server" {
		t.Errorf("response headers: %+v", r)
	}
}

func TestTCPProxyAndMissingRDS(t *testing.T) {
	tcp := prototest.Any(t, &tcpproxyv3.TcpProxy{StatPrefix: "tls", ClusterSpecifier: &tcpproxyv3.TcpProxy_Cluster{Cluster: "passthrough"}})
	rds := &hcmv3.HttpConnectionManager{RouteSpecifier: &hcmv3.HttpConnectionManager_Rds{Rds: &hcmv3.Rds{RouteConfigName: "gone"}}}
	c := New(&translate.Resources{Listeners: []*listenerv3.Listener{
		listener("tls", 8443, true, &listenerv3.FilterChain{
			FilterChainMatch: &listenerv3.FilterChainMatch{ServerNames: []string{"pass.example.com"}},
			Filters:          []*listenerv3.Filter{{Name: "tcp", ConfigType: &listenerv3.Filter_TypedConfig{TypedConfig: tcp}}},
		}),
		listener("http", 8080, false, hcmChain(t, rds)),
	}}, nil)
	d, _ := c.Evaluate(Request{Authority: "pass.example.com", Scheme: "https"})
	if d.Action.TCPProxy == nil || d.Action.TCPProxy.Cluster.Name != "passthrough" || !d.Action.TCPProxy.Cluster.Missing {
		t.Errorf("TLS passthrough: %s", d.Action)
	}
	d, _ = c.Evaluate(Request{Authority: "a.com"})
	if d.Action.NoMatch == nil || d.Action.NoMatch.Status != 404 || !strings.Contains(d.Action.NoMatch.Reason, `"gone"`) {
		t.Errorf("missing RDS: %s", d.Action)
	}
}

// Routes are tried in order and the first match wins, even when a later
// route is more specific; routes after the winner are not tried.
func TestFirstMatchWins(t *testing.T) {
	hcm := &hcmv3.HttpConnectionManager{
		NormalizePath: wrapperspb.Bool(true),
		MergeSlashes:  true,
		RouteSpecifier: &hcmv3.HttpConnectionManager_RouteConfig{RouteConfig: &routev3.RouteConfiguration{
			VirtualHosts: []*routev3.VirtualHost{{Name: "vh", Domains: []string{"*"}, Routes: []*routev3.Route{
				clusterRoute(matchExactPath("/exact"), "a"),
				clusterRoute(matchPrefix("/"), "b"),
				clusterRoute(matchPrefix("/longer"), "c"),
			}}},
		}},
	}
	c := New(&translate.Resources{Listeners: []*listenerv3.Listener{listener("l", 8080, false, hcmChain(t, hcm))}}, nil)
	for path, want := range map[string]int{"/exact": 0, "/longer/x": 1, "//exact": 0, "/x/../exact": 0, "/exact/": 1} {
		d, err := c.Evaluate(Request{Authority: "h", Path: path})
		if err != nil {
			t.Fatal(err)
		}
		if d.RouteIndex != want || len(d.Routes) != want+1 {
			t.Errorf("%s: route #%d after trying %d, want #%d", path, d.RouteIndex, len(d.Routes), want)
		}
	}
}

func TestEvaluateRejectsBadRequests(t *testing.T) {
	c := New(&translate.Resources{}, nil)
	for _, r := range []Request{
		{},
		{Authority: "a", Path: "x"},
		{Authority: "a", Scheme: "ftp"},
		{Authority: "a", Port: 70000},
		{Authority: "a", SourceAddress: "10.0.0.300"},
		{Authority: "a", Headers: []Header{{Name: ":path", Value: "/"}}},
	} {
		if _, err := c.Evaluate(r); err == nil {
			t.Errorf("%+v: no error", r)
		}
	}
	d, err := c.Evaluate(Request{Authority: "a"})
	if err != nil || d.Action.NoMatch == nil || !strings.Contains(d.Action.NoMatch.Reason, "connection is refused") {
		t.Errorf("no listeners: %+v, %v", d, err)
	}
}

// TestAuthorityPortWithoutListener: a Host whose port no listener has,
// with no port given, reaches the scheme's default port's listener, and
// the listener step says why; a port given in the request is kept, and
// refused.
func TestAuthorityPortWithoutListener(t *testing.T) {
	hcm := &hcmv3.HttpConnectionManager{RouteSpecifier: &hcmv3.HttpConnectionManager_RouteConfig{RouteConfig: &routev3.RouteConfiguration{
		VirtualHosts: []*routev3.VirtualHost{{Name: "vh", Domains: []string{"*"}, Routes: []*routev3.Route{clusterRoute(matchPrefix("/"), "a")}}},
	}}}
	c := New(&translate.Resources{Listeners: []*listenerv3.Listener{listener("l", 8080, false, hcmChain(t, hcm))}}, nil)
	d, err := c.Evaluate(Request{Authority: "very.specific.com:1234", Path: "/"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Listener != "l" || d.Action.NoMatch != nil || d.Request.Port != 80 {
		t.Fatalf("listener %q, port %d, refusal %+v: want listener l on port 80", d.Listener, d.Request.Port, d.Action.NoMatch)
	}
	if len(d.Steps) == 0 || !strings.Contains(d.Steps[0].Message, "no listener for the authority's port 1234") {
		t.Errorf("listener step %+v does not say the authority's port has no listener", d.Steps)
	}
	d, err = c.Evaluate(Request{Authority: "very.specific.com:1234", Path: "/", Port: 1234})
	if err != nil || d.Action.NoMatch == nil || !strings.Contains(d.Action.NoMatch.Reason, "connection is refused") {
		t.Errorf("given port 1234: %+v, %v; want the connection refused", d.Action, err)
	}
}
