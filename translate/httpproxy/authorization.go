package httpproxy

import (
	"cmp"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/config"
	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/internal/status"
)

// External authorization (ext_authz) of HTTPProxy virtual hosts, served by
// an ExtensionService. An authorization server's serviceType and
// httpSettings are not in the published Contour API module (v1.33): they
// come from the loader's extensions (loader.AuthorizationExtensions).

// externalAuthorization resolves a virtual host's authorization settings;
// nil with no error reported means there is none.
func (p *Processor) externalAuthorization(st *status.Proxy, proxy *contourv1.HTTPProxy) (*dag.ExternalAuthorization, bool) {
	auth := proxy.Spec.VirtualHost.Authorization
	if auth == nil || auth.ExtensionServiceRef.Name == "" {
		// The configuration's global authorization server, if any,
		// checks the virtual host instead.
		if g := p.globalAuth(); g != nil {
			return p.resolveAuthorization(st, proxy, g, p.Settings.GlobalExtAuthExtensions)
		}
		return nil, true
	}
	return p.resolveAuthorization(st, proxy, auth, p.Index.HTTPProxyExtensions(proxy).AuthorizationOf())
}

// globalAuth is the configuration's globalExtAuth, or nil.
func (p *Processor) globalAuth() *contourv1.AuthorizationServer {
	if p.Settings == nil {
		return nil
	}
	return p.Settings.GlobalExtAuth
}

// resolveAuthorization resolves an authorization server, with its
// extension fields (nil: gRPC), against the valid ExtensionServices.
func (p *Processor) resolveAuthorization(st *status.Proxy, proxy *contourv1.HTTPProxy, auth *contourv1.AuthorizationServer, ext *loader.AuthorizationExtensions) (*dag.ExternalAuthorization, bool) {
	ref := auth.ExtensionServiceRef
	if ref.APIVersion == "" {
		ref.APIVersion = "projectcontour.io/v1alpha1"
	}
	if ref.APIVersion != "projectcontour.io/v1alpha1" {
		st.AddError("AuthError", "AuthBadResourceVersion", "Spec.Virtualhost.Authorization.extensionRef specifies an unsupported resource version %q", ref.APIVersion)
		return nil, false
	}
	name := types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}
	if name.Namespace == "" {
		name.Namespace = proxy.Namespace
	}
	cluster := p.DAG.Extensions[name]
	if cluster == nil {
		st.AddError("AuthError", "ExtensionServiceNotFound", "Spec.Virtualhost.Authorization.ServiceRef extension service %q not found", name)
		return nil, false
	}
	timeout, err := dag.ParseTimeout(auth.ResponseTimeout)
	if err != nil {
		st.AddError("AuthError", "AuthResponseTimeoutInvalid", "Spec.Virtualhost.Authorization.ResponseTimeout is invalid: %s", err)
		return nil, false
	}
	out := &dag.ExternalAuthorization{
		Extension:       cluster,
		FailOpen:        auth.FailOpen,
		ResponseTimeout: extensionTimeout(cluster, timeout),
	}
	if err := config.ApplyAuthorizationServiceType(out, auth.AuthPolicy, ext); err != nil {
		st.AddError("AuthError", err.Reason, "%s", err.Msg)
		return nil, false
	}
	if b := auth.WithRequestBody; b != nil {
		out.WithRequestBody = &dag.RequestBodyBuffer{MaxRequestBytes: cmp.Or(b.MaxRequestBytes, config.DefaultMaxRequestBytes), AllowPartialMessage: b.AllowPartialMessage, PackAsBytes: b.PackAsBytes}
	}
	return out, true
}

// routeAuthorization sets a route's authorization overrides when its root
// virtual host has an authorization server: the virtual host's policy is
// the default, the route's own policy wins, and contexts merge.
//
// With the configuration's global authorization server (global), its
// policy is the default below the virtual host's.
func routeAuthorization(r *dag.Route, root *contourv1.HTTPProxy, route contourv1.Route, global *contourv1.AuthorizationServer) {
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

// checkGlobalAuthorization reports, as Contour does on the plain virtual
// host, a global authorization server whose ExtensionService is not valid;
// the virtual host is still served.
func (p *Processor) checkGlobalAuthorization(st *status.Proxy, proxy *contourv1.HTTPProxy) {
	g := p.globalAuth()
	if g == nil {
		return
	}
	if a := proxy.Spec.VirtualHost.Authorization; a != nil && a.AuthPolicy != nil && a.AuthPolicy.Disabled {
		return
	}
	name := types.NamespacedName{Namespace: g.ExtensionServiceRef.Namespace, Name: g.ExtensionServiceRef.Name}
	if name.Namespace == "" {
		name.Namespace = proxy.Namespace
	}
	if p.DAG.Extensions[name] == nil {
		st.AddError("AuthError", "ExtensionServiceNotFound", "Spec.Virtualhost.Authorization.ServiceRef extension service %q not found", name)
	}
}
