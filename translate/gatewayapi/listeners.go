package gatewayapi

import (
	"fmt"
	"net"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/dag/index"
	"github.com/contourc/contourc/translate/internal/status"
)

// Gateway listeners: which Envoy listener each Gateway listener maps to,
// which are valid, and what each one accepts.

// contourHTTPSProtocol is Contour's protocol for a listener whose TLS is
// configured on HTTPProxies/Ingresses instead.
const contourHTTPSProtocol = "projectcontour.io/https"

// envoyPort is an Envoy listener for a Gateway port.
type envoyPort struct {
	name          string // http-80, https-443, tcp-9000
	containerPort uint32
	protocol      string // http, https or tcp
}

// listenerValidation is the result of checking a Gateway's listeners
// against each other.
type listenerValidation struct {
	envoyNames map[string]string // Gateway listener name -> Envoy listener
	ports      []envoyPort
	invalid    map[string]status.Condition // Gateway listener name -> condition
}

// validateListeners checks hostnames, protocols and per-port conflicts; a
// listener conflicting with an earlier one loses.
func validateListeners(listeners []gatewayv1.Listener) listenerValidation {
	out := listenerValidation{envoyNames: map[string]string{}, invalid: map[string]status.Condition{}}
	for i, l := range listeners {
		name := string(l.Name)
		if h := hostnameOf(l); h != "" {
			if err := validHostname(h); err != nil {
				out.invalid[name] = status.Condition{Type: "Programmed", Status: "False", Reason: "Invalid", Message: err.Error()}
				continue
			}
		}
		switch l.Protocol {
		case gatewayv1.HTTPProtocolType, gatewayv1.HTTPSProtocolType, gatewayv1.TLSProtocolType, gatewayv1.TCPProtocolType, contourHTTPSProtocol:
		default:
			out.invalid[name] = status.Condition{Type: "Accepted", Status: "False", Reason: "UnsupportedProtocol",
				Message: fmt.Sprintf("Listener protocol %q is unsupported, must be one of HTTP, HTTPS, TLS, TCP or projectcontour.io/https", l.Protocol)}
			continue
		}
		if c, conflict := listenerConflict(l, listeners[:i]); conflict {
			out.invalid[name] = c
			continue
		}
		protocol := envoyProtocol(l.Protocol)
		envoyName := fmt.Sprintf("%s-%d", protocol, l.Port)
		out.envoyNames[name] = envoyName
		if !slices.ContainsFunc(out.ports, func(p envoyPort) bool { return p.name == envoyName }) {
			out.ports = append(out.ports, envoyPort{name: envoyName, containerPort: containerPort(l.Port), protocol: protocol})
		}
	}
	return out
}

// listenerConflict checks l against the listeners before it.
func listenerConflict(l gatewayv1.Listener, earlier []gatewayv1.Listener) (status.Condition, bool) {
	conflicted := func(reason, msg string) (status.Condition, bool) {
		return status.Condition{Type: "Conflicted", Status: "True", Reason: reason, Message: msg}, true
	}
	for _, o := range earlier {
		if l.Port != o.Port {
			// Ports that map to the same container port cannot both listen.
			if containerPort(l.Port) == containerPort(o.Port) {
				return status.Condition{Type: "Accepted", Status: "False", Reason: "PortUnavailable", Message: "Listener port conflicts with a previous Listener's port"}, true
			}
			continue
		}
		if envoyProtocolFamily(l.Protocol) != envoyProtocolFamily(o.Protocol) {
			return conflicted("ProtocolConflict", "All Listener protocols for a given port must be compatible")
		}
		if hostnameOf(l) == hostnameOf(o) {
			return conflicted("HostnameConflict", "All Listener hostnames for a given port must be unique")
		}
	}
	return status.Condition{}, false
}

// envoyProtocol is the Envoy listener protocol of a Gateway protocol.
func envoyProtocol(p gatewayv1.ProtocolType) string {
	switch p {
	case gatewayv1.HTTPProtocolType:
		return "http"
	case gatewayv1.TCPProtocolType:
		return "tcp"
	default:
		return "https"
	}
}

// envoyProtocolFamily groups protocols that may share a port: HTTPS, TLS
// and projectcontour.io/https do; HTTP and TCP only with themselves.
func envoyProtocolFamily(p gatewayv1.ProtocolType) string {
	switch p {
	case gatewayv1.HTTPSProtocolType, gatewayv1.TLSProtocolType, contourHTTPSProtocol:
		return "tls"
	default:
		return string(p)
	}
}

// containerPort is the port Envoy binds for a Gateway port: +8000,
// wrapping past 65535 and skipping the privileged ports.
func containerPort(p gatewayv1.PortNumber) uint32 {
	port := int(p) + 8000
	if port > 65535 {
		port -= 65535
	}
	if port <= 1023 {
		port += 1023
	}
	return uint32(port)
}

func hostnameOf(l gatewayv1.Listener) string {
	if l.Hostname == nil {
		return ""
	}
	return string(*l.Hostname)
}

// validHostname accepts DNS names and wildcard DNS names, not IPs.
func validHostname(h string) error {
	if plainDNSName(h) {
		return nil
	}
	return checkHostname(h)
}

// checkHostname is validHostname for any name, with apimachinery's
// messages.
func checkHostname(h string) error {
	if net.ParseIP(h) != nil {
		return fmt.Errorf("invalid hostname %q: must be a DNS name, not an IP address", h)
	}
	var errs []string
	if strings.Contains(h, "*") {
		errs = validation.IsWildcardDNS1123Subdomain(h)
	} else {
		errs = validation.IsDNS1123Subdomain(h)
	}
	if errs != nil {
		return fmt.Errorf("invalid hostname %q: %v", h, errs)
	}
	return nil
}

// plainDNSName accepts, without apimachinery's regular expression (6 ms
// at 5,000 HTTPRoutes), a DNS-1123 subdomain with a letter in it, so not
// an IP address: dot-separated labels of lower-case letters, digits and
// dashes that start and end with a letter or digit, 253 bytes at most.
// Anything else is left to validHostname's checks and their messages.
func plainDNSName(h string) bool {
	if len(h) > validation.DNS1123SubdomainMaxLength || !strings.ContainsFunc(h, isLowerLetter) {
		return false
	}
	for label := range strings.SplitSeq(h, ".") {
		if label == "" || !isLowerAlnum(label[0]) || !isLowerAlnum(label[len(label)-1]) {
			return false
		}
		for i := 1; i < len(label)-1; i++ {
			if c := label[i]; !isLowerAlnum(c) && c != '-' {
				return false
			}
		}
	}
	return true
}

func isLowerLetter(c rune) bool { return 'a' <= c && c <= 'z' }

func isLowerAlnum(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

// gatewayListener is a Gateway listener as routes see it.
type gatewayListener struct {
	spec              gatewayv1.Listener
	envoyListener     string
	allowedKinds      []string
	namespaceSelector labels.Selector
	secret            *dag.Secret
	ready             bool
}

func (l *gatewayListener) allows(kind string) bool { return slices.Contains(l.allowedKinds, kind) }

// computeListener validates one listener's allowed routes and TLS, and
// sets its conditions; an unready listener attaches no routes.
func (p *Processor) computeListener(l gatewayv1.Listener, v listenerValidation) *gatewayListener {
	name := string(l.Name)
	info := &gatewayListener{spec: l, envoyListener: v.envoyNames[name]}
	invalid := func(msg string) { p.Status.gateway.addListenerCondition(name, "Programmed", "False", "Invalid", msg) }
	defer p.defaultListenerConditions(name)

	info.allowedKinds = p.listenerRouteKinds(l)
	ls := p.Status.gateway.listener(name)
	for _, k := range info.allowedKinds {
		ls.SupportedKinds = append(ls.SupportedKinds, status.RouteGroupKind{Group: gatewayv1.GroupName, Kind: k})
	}
	if ns := l.AllowedRoutes; ns != nil && ns.Namespaces != nil && ns.Namespaces.From != nil && *ns.Namespaces.From == gatewayv1.NamespacesFromSelector {
		sel := ns.Namespaces.Selector
		switch {
		case sel == nil:
			invalid(`Listener.AllowedRoutes.Namespaces.Selector is required when Listener.AllowedRoutes.Namespaces.From is set to "Selector".`)
			return info
		case len(sel.MatchExpressions)+len(sel.MatchLabels) == 0:
			invalid("Listener.AllowedRoutes.Namespaces.Selector must specify at least one MatchLabel or MatchExpression.")
			return info
		}
		s, err := metav1.LabelSelectorAsSelector(sel)
		if err != nil {
			invalid(fmt.Sprintf("Error parsing Listener.AllowedRoutes.Namespaces.Selector: %v.", err))
			return info
		}
		info.namespaceSelector = s
	}
	// An invalid port/protocol/hostname still counts attached routes.
	if _, bad := v.invalid[name]; bad {
		return info
	}
	switch l.Protocol {
	case gatewayv1.HTTPSProtocolType:
		if l.TLS == nil {
			invalid(fmt.Sprintf("Listener.TLS is required when protocol is %q.", l.Protocol))
			return info
		}
		if l.TLS.Mode != nil && *l.TLS.Mode != gatewayv1.TLSModeTerminate {
			invalid(fmt.Sprintf("Listener.TLS.Mode must be %q when protocol is %q.", gatewayv1.TLSModeTerminate, l.Protocol))
			return info
		}
		if info.secret = p.listenerSecret(l.TLS.CertificateRefs, name); info.secret == nil {
			return info
		}
	case gatewayv1.TLSProtocolType:
		if l.TLS == nil {
			invalid(fmt.Sprintf("Listener.TLS is required when protocol is %q.", l.Protocol))
			return info
		}
		switch {
		case l.TLS.Mode == nil || *l.TLS.Mode == gatewayv1.TLSModeTerminate:
			if info.secret = p.listenerSecret(l.TLS.CertificateRefs, name); info.secret == nil {
				return info
			}
		case *l.TLS.Mode == gatewayv1.TLSModePassthrough:
			if len(l.TLS.CertificateRefs) != 0 {
				invalid(fmt.Sprintf("Listener.TLS.CertificateRefs cannot be defined when Listener.TLS.Mode is %q.", gatewayv1.TLSModePassthrough))
				return info
			}
		default:
			invalid(fmt.Sprintf("Listener.TLS.Mode must be %q or %q.", gatewayv1.TLSModeTerminate, gatewayv1.TLSModePassthrough))
			return info
		}
	}
	info.ready = true
	return info
}

// defaultListenerConditions completes a listener's Programmed, Accepted and
// ResolvedRefs conditions: all True when nothing was reported, else the
// missing ones, Programmed being False when anything else went wrong.
func (p *Processor) defaultListenerConditions(name string) {
	g := p.Status.gateway
	conds := g.listener(name).Conditions
	if len(conds) == 0 {
		g.addListenerCondition(name, "Programmed", "True", "Programmed", "Valid listener")
		g.addListenerCondition(name, "Accepted", "True", "Accepted", "Listener accepted")
		g.addListenerCondition(name, "ResolvedRefs", "True", "ResolvedRefs", "Listener references resolved")
		return
	}
	if !conds.Has("Programmed") {
		g.addListenerCondition(name, "Programmed", "False", "Invalid", "Invalid listener, see other listener conditions for details")
	}
	if !conds.Has("Accepted") {
		g.addListenerCondition(name, "Accepted", "True", "Accepted", "Listener accepted")
	}
	if !conds.Has("ResolvedRefs") {
		g.addListenerCondition(name, "ResolvedRefs", "True", "ResolvedRefs", "Listener references resolved")
	}
}

// Route kinds.
const (
	kindHTTPRoute = "HTTPRoute"
	kindGRPCRoute = "GRPCRoute"
	kindTLSRoute  = "TLSRoute"
	kindTCPRoute  = "TCPRoute"
)

// listenerRouteKinds are the route kinds a listener accepts: the explicit
// list, less unsupported or incompatible kinds (reported), else the
// protocol's defaults.
func (p *Processor) listenerRouteKinds(l gatewayv1.Listener) []string {
	name := string(l.Name)
	if l.AllowedRoutes == nil || len(l.AllowedRoutes.Kinds) == 0 {
		switch l.Protocol {
		case gatewayv1.HTTPProtocolType, gatewayv1.HTTPSProtocolType:
			return []string{kindHTTPRoute, kindGRPCRoute}
		case gatewayv1.TLSProtocolType:
			return []string{kindTLSRoute, kindTCPRoute}
		case gatewayv1.TCPProtocolType:
			return []string{kindTCPRoute}
		}
		return nil
	}
	invalidKind := func(msg string) {
		p.Status.gateway.addListenerCondition(name, "ResolvedRefs", "False", "InvalidRouteKinds", msg)
	}
	var kinds []string
	for _, rk := range l.AllowedRoutes.Kinds {
		kind := string(rk.Kind)
		switch {
		case rk.Group != nil && *rk.Group != gatewayv1.GroupName:
			invalidKind(fmt.Sprintf("Group %q is not supported, group must be %q", *rk.Group, gatewayv1.GroupName))
		case kind != kindHTTPRoute && kind != kindTLSRoute && kind != kindGRPCRoute && kind != kindTCPRoute:
			invalidKind(fmt.Sprintf("Kind %q is not supported, kind must be %q, %q, %q or %q", kind, kindHTTPRoute, kindTLSRoute, kindGRPCRoute, kindTCPRoute))
		case kind == kindTLSRoute && l.Protocol != gatewayv1.TLSProtocolType:
			invalidKind(fmt.Sprintf("TLSRoutes are incompatible with listener protocol %q", l.Protocol))
		case kind == kindTCPRoute && l.Protocol != gatewayv1.TCPProtocolType && l.Protocol != gatewayv1.TLSProtocolType:
			invalidKind(fmt.Sprintf("TCPRoutes are incompatible with listener protocol %q", l.Protocol))
		default:
			kinds = append(kinds, kind)
		}
	}
	return kinds
}

// listenerSecret resolves a listener's single certificate reference: a
// core Secret, in the Gateway's namespace or granted by a ReferenceGrant,
// that is a valid TLS secret (TLSCertificateDelegation does not apply).
func (p *Processor) listenerSecret(refs []gatewayv1.SecretObjectReference, listener string) *dag.Secret {
	g := p.Status.gateway
	if len(refs) != 1 {
		g.addListenerCondition(listener, "Programmed", "False", "Invalid", "Listener.TLS.CertificateRefs must contain exactly one entry")
		return nil
	}
	ref := refs[0]
	if ref.Group == nil || *ref.Group != "" || ref.Kind == nil || *ref.Kind != "Secret" {
		g.addListenerCondition(listener, "ResolvedRefs", "False", "InvalidCertificateRef",
			fmt.Sprintf("Spec.VirtualHost.TLS.CertificateRefs %q must contain a reference to a core.Secret", ref.Name))
		return nil
	}
	name := types.NamespacedName{Namespace: p.Gateway.Namespace, Name: string(ref.Name)}
	if ref.Namespace != nil {
		name.Namespace = string(*ref.Namespace)
	}
	if name.Namespace != p.Gateway.Namespace && !p.referenceGranted(gatewayv1.GroupName, "Gateway", p.Gateway.Namespace, "", "Secret", name) {
		g.addListenerCondition(listener, "ResolvedRefs", "False", "RefNotPermitted",
			fmt.Sprintf("Spec.VirtualHost.TLS.CertificateRefs %q namespace must match the Gateway's namespace or be covered by a ReferenceGrant", ref.Name))
		return nil
	}
	s, ok := p.Index.Secrets[name]
	if !ok {
		g.addListenerCondition(listener, "ResolvedRefs", "False", "InvalidCertificateRef",
			fmt.Sprintf("Spec.VirtualHost.TLS.CertificateRefs %q referent is invalid: Secret not found", ref.Name))
		return nil
	}
	if err := index.ValidTLSSecret(s); err != nil {
		g.addListenerCondition(listener, "ResolvedRefs", "False", "InvalidCertificateRef",
			fmt.Sprintf("Spec.VirtualHost.TLS.CertificateRefs %q referent is invalid: %s", ref.Name, err))
		return nil
	}
	return &dag.Secret{Namespace: s.Namespace, Name: s.Name, Cert: s.Data["tls.crt"], Key: s.Data["tls.key"]}
}

// referenceGranted says whether a ReferenceGrant in to's namespace lets
// objects of fromGroup/fromKind in fromNamespace refer to toGroup/toKind
// to (by name, or all names).
func (p *Processor) referenceGranted(fromGroup, fromKind, fromNamespace, toGroup, toKind string, to types.NamespacedName) bool {
	for _, rg := range p.Index.ReferenceGrants {
		if rg.Namespace != to.Namespace {
			continue
		}
		fromOK := slices.ContainsFunc(rg.Spec.From, func(f gatewayv1.ReferenceGrantFrom) bool {
			return string(f.Namespace) == fromNamespace && string(f.Group) == fromGroup && string(f.Kind) == fromKind
		})
		toOK := slices.ContainsFunc(rg.Spec.To, func(t gatewayv1.ReferenceGrantTo) bool {
			return string(t.Group) == toGroup && string(t.Kind) == toKind && (t.Name == nil || *t.Name == "" || string(*t.Name) == to.Name)
		})
		if fromOK && toOK {
			return true
		}
	}
	return false
}
