package translate

import (
	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	"k8s.io/apimachinery/pkg/types"
)

// External authorization (ext_authz) of HTTPProxy virtual hosts, served by
// an ExtensionService.

// ExternalAuthorization is a secure virtual host's authorization server.
type ExternalAuthorization struct {
	Extension       *ExtensionCluster
	HTTPService     bool // else gRPC
	FailOpen        bool
	ResponseTimeout Timeout
	PathPrefix      string
	// AllowedAuthorizationHeaders and AllowedUpstreamHeaders are header
	// name matchers of the HTTP service.
	AllowedAuthorizationHeaders, AllowedUpstreamHeaders []HeaderNameMatch
	WithRequestBody                                     *RequestBodyBuffer
}

// HeaderNameMatch matches a header name: exact, prefix, suffix or contains.
type HeaderNameMatch struct {
	Type, Value string
	IgnoreCase  bool
}

// RequestBodyBuffer sends the request body to the authorization server.
type RequestBodyBuffer struct {
	MaxRequestBytes                  uint32
	AllowPartialMessage, PackAsBytes bool
}

// defaultMaxRequestBytes is the CRD default of withRequestBody.maxRequestBytes.
const defaultMaxRequestBytes = 1024

// externalAuthorization resolves a virtual host's authorization settings;
// nil with no error reported means there is none.
func (p *httpProxyProcessor) externalAuthorization(st *proxyStatus, proxy *contourv1.HTTPProxy) (*ExternalAuthorization, bool) {
	auth := proxy.Spec.VirtualHost.Authorization
	if auth == nil || auth.ExtensionServiceRef.Name == "" {
		// The configuration's global authorization server, if any,
		// checks the virtual host instead.
		if g := p.globalAuth(); g != nil {
			return p.resolveAuthorization(st, proxy, g)
		}
		return nil, true
	}
	return p.resolveAuthorization(st, proxy, auth)
}

// globalAuth is the configuration's globalExtAuth, or nil.
func (p *httpProxyProcessor) globalAuth() *contourv1.AuthorizationServer {
	if p.settings == nil {
		return nil
	}
	return p.settings.extAuth
}

// resolveAuthorization resolves an authorization server against the valid
// ExtensionServices.
func (p *httpProxyProcessor) resolveAuthorization(st *proxyStatus, proxy *contourv1.HTTPProxy, auth *contourv1.AuthorizationServer) (*ExternalAuthorization, bool) {
	ref := auth.ExtensionServiceRef
	if ref.APIVersion == "" {
		ref.APIVersion = "projectcontour.io/v1alpha1"
	}
	if ref.APIVersion != "projectcontour.io/v1alpha1" {
		st.addError("AuthError", "AuthBadResourceVersion", "Spec.Virtualhost.Authorization.extensionRef specifies an unsupported resource version %q", ref.APIVersion)
		return nil, false
	}
	name := types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}
	if name.Namespace == "" {
		name.Namespace = proxy.Namespace
	}
	ext := p.dag.extensions[name]
	if ext == nil {
		st.addError("AuthError", "ExtensionServiceNotFound", "Spec.Virtualhost.Authorization.ServiceRef extension service %q not found", name)
		return nil, false
	}
	timeout, err := parseTimeout(auth.ResponseTimeout)
	if err != nil {
		st.addError("AuthError", "AuthResponseTimeoutInvalid", "Spec.Virtualhost.Authorization.ResponseTimeout is invalid: %s", err)
		return nil, false
	}
	// The published Contour API (v1.33) has only gRPC authorization
	// servers; HTTP ones (serviceType: http) arrive with a newer API module.
	out := &ExternalAuthorization{
		Extension:       ext,
		FailOpen:        auth.FailOpen,
		ResponseTimeout: extensionTimeout(ext, timeout),
	}
	if p.settings != nil && auth == p.settings.extAuth {
		out.HTTPService = p.settings.extAuthHTTP
	}
	if b := auth.WithRequestBody; b != nil {
		out.WithRequestBody = &RequestBodyBuffer{MaxRequestBytes: orDefault(b.MaxRequestBytes, defaultMaxRequestBytes), AllowPartialMessage: b.AllowPartialMessage, PackAsBytes: b.PackAsBytes}
	}
	return out, true
}

// routeAuthorization sets a route's authorization overrides when its root
// virtual host has an authorization server: the virtual host's policy is
// the default, the route's own policy wins, and contexts merge.
//
// With the configuration's global authorization server (global), its
// policy is the default below the virtual host's.
func routeAuthorization(r *Route, root *contourv1.HTTPProxy, route contourv1.Route, global *contourv1.AuthorizationServer) {
	auth := root.Spec.VirtualHost.Authorization
	if auth == nil && global == nil {
		return
	}
	r.AuthDisabled = global != nil && global.AuthPolicy != nil && global.AuthPolicy.Disabled
	if auth != nil {
		r.AuthDisabled = auth.AuthPolicy != nil && auth.AuthPolicy.Disabled
	}
	if route.AuthPolicy != nil {
		r.AuthDisabled = route.AuthPolicy.Disabled
	}
	var parent map[string]string
	switch {
	case auth != nil:
		if auth.AuthPolicy != nil {
			parent = auth.AuthPolicy.Context
		}
	case global.AuthPolicy != nil:
		parent = global.AuthPolicy.Context
	}
	r.AuthContext = route.AuthorizationContext(parent)
}
