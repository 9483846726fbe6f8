package protowalk

import (
	"strings"
	"testing"

	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/contourc/contourc/render/internal/presence"
)

// listenerWithVirtualHost is a listener whose connection manager, packed in
// a filter's typed config, holds one inline virtual host.
func listenerWithVirtualHost(t *testing.T, vh *routev3.VirtualHost) *listenerv3.Listener {
	t.Helper()
	hcm, err := anypb.New(&hcmv3.HttpConnectionManager{
		StatPrefix: "ingress_http",
		RouteSpecifier: &hcmv3.HttpConnectionManager_RouteConfig{RouteConfig: &routev3.RouteConfiguration{
			Name: "inline", VirtualHosts: []*routev3.VirtualHost{vh},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return &listenerv3.Listener{Name: "ingress_http", FilterChains: []*listenerv3.FilterChain{{
		Filters: []*listenerv3.Filter{{Name: "envoy.filters.network.http_connection_manager", ConfigType: &listenerv3.Filter_TypedConfig{TypedConfig: hcm}}},
	}}}
}

// ValidateDeep finds what the generated ValidateAll misses, a problem
// inside an Any, and names where it is by the elements' names.
func TestValidateDeepLooksInsideAnys(t *testing.T) {
	bad := listenerWithVirtualHost(t, &routev3.VirtualHost{Name: "", Domains: []string{"*"}})
	if err := ValidateOne(bad); err != nil {
		t.Fatalf("ValidateOne looked inside the Any: %v", err)
	}
	err := ValidateDeep(bad)
	if err == nil {
		t.Fatal("no error for a virtual host without a name")
	}
	const path = `filter_chains[0].filters["envoy.filters.network.http_connection_manager"].typed_config`
	if !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), "VirtualHost.Name") {
		t.Errorf("error %q, want it at %s and about VirtualHost.Name", err, path)
	}
	if err := ValidateDeep(listenerWithVirtualHost(t, &routev3.VirtualHost{Name: "v", Domains: []string{"*"}})); err != nil {
		t.Errorf("a valid listener: %v", err)
	}
}

// A walk with a memo walks a repeated Any once and gives every copy the
// same rewrite, packed again.
func TestWalkerMemoRewritesRepeatedAnysAlike(t *testing.T) {
	l := listenerWithVirtualHost(t, &routev3.VirtualHost{Name: "v", Domains: []string{"*"}})
	first := l.FilterChains[0].Filters[0].GetTypedConfig()
	l.FilterChains = append(l.FilterChains, &listenerv3.FilterChain{Filters: []*listenerv3.Filter{{
		Name:       "envoy.filters.network.http_connection_manager",
		ConfigType: &listenerv3.Filter_TypedConfig{TypedConfig: &anypb.Any{TypeUrl: first.GetTypeUrl(), Value: first.GetValue()}},
	}}})
	visits := 0
	w := &Walker{
		Memo:    map[string][]byte{},
		Targets: presence.NewTargets(&routev3.VirtualHost{}),
		Visit: func(m protoreflect.Message) (bool, error) {
			vh, ok := m.Interface().(*routev3.VirtualHost)
			if !ok {
				return false, nil
			}
			visits++
			vh.Name = "renamed"
			return true, nil
		},
	}
	changed, err := w.Walk(l.ProtoReflect())
	if err != nil || !changed {
		t.Fatalf("changed %v, err %v", changed, err)
	}
	if visits != 1 {
		t.Errorf("the virtual host was visited %d times, want once", visits)
	}
	for i, fc := range l.FilterChains {
		hcm := &hcmv3.HttpConnectionManager{}
		if err := fc.Filters[0].GetTypedConfig().UnmarshalTo(hcm); err != nil {
			t.Fatal(err)
		}
		if got := hcm.GetRouteConfig().GetVirtualHosts()[0].GetName(); got != "renamed" {
			t.Errorf("filter chain %d: virtual host %q, want the rewrite", i, got)
		}
	}
}
