package routetest

import (
	"fmt"
	"strings"

	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	extauthzv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ext_authz/v3"
	luav3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/lua/v3"
	rbacfilterv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/rbac/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tcpproxyv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// networkFilters are the terminal network filters of a filter chain.
type networkFilters struct {
	hcm *hcmv3.HttpConnectionManager
	tcp *tcpproxyv3.TcpProxy
}

// chainFilters finds the HTTP connection manager or TCP proxy of a chain.
// Filters are recognised by their typed_config's type, as Envoy does.
func chainFilters(fc *listenerv3.FilterChain) (networkFilters, error) {
	var out networkFilters
	for _, f := range fc.GetFilters() {
		tc := f.GetTypedConfig()
		switch {
		case isType(tc, &hcmv3.HttpConnectionManager{}):
			out.hcm = &hcmv3.HttpConnectionManager{}
			if err := tc.UnmarshalTo(out.hcm); err != nil {
				return out, fmt.Errorf("filter %s: %v", f.GetName(), err)
			}
			return out, nil
		case isType(tc, &tcpproxyv3.TcpProxy{}):
			out.tcp = &tcpproxyv3.TcpProxy{}
			if err := tc.UnmarshalTo(out.tcp); err != nil {
				return out, fmt.Errorf("filter %s: %v", f.GetName(), err)
			}
			return out, nil
		}
	}
	return out, nil
}

func isType(a *anypb.Any, m proto.Message) bool {
	return a != nil && strings.TrimPrefix(a.GetTypeUrl(), "type.googleapis.com/") == string(m.ProtoReflect().Descriptor().FullName())
}

// hcmFilters are the HTTP filters of a connection manager that change
// where a request ends up. ext_authz and rbac hold the filter names, which
// are the keys of their per-route configuration.
type hcmFilters struct {
	extAuthz    string
	rbac        string
	misdirected bool
}

// httpFilters looks through a connection manager's HTTP filters.
// Contour's misdirected-request check is a Lua script that compares the
// host with the connection's SNI (requestedServerName); it is recognised
// by that call.
func httpFilters(hcm *hcmv3.HttpConnectionManager) hcmFilters {
	var out hcmFilters
	for _, f := range hcm.GetHttpFilters() {
		tc := f.GetTypedConfig()
		switch {
		case isType(tc, &extauthzv3.ExtAuthz{}):
			out.extAuthz = f.GetName()
		case isType(tc, &rbacfilterv3.RBAC{}):
			out.rbac = f.GetName()
		case isType(tc, &luav3.Lua{}):
			lua := &luav3.Lua{}
			if tc.UnmarshalTo(lua) == nil && strings.Contains(lua.GetDefaultSourceCode().GetInlineString(), "requestedServerName") {
				out.misdirected = true
			}
		}
	}
	return out
}
