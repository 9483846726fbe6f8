package translate

// Builders and finders shared by the Ingress rule tests (ingress_test.go,
// route_sort_test.go, secret_notices_test.go, annotations_test.go). Objects are built
// in memory as the loader would hand them over: typed pointers with their
// Kind and a Source. Every test goes through translateIngressT, which also
// runs go-control-plane's generated validation on every produced resource,
// including the messages packed in Any fields.

import (
	"crypto/sha1" //nolint:gosec // Contour's secret names use SHA-1
	"encoding/hex"
	"strings"
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/contourc/contourc/loader"
)

// ---- objects ---------------------------------------------------------------

// mkObjects wraps typed objects as loader.Objects, each with a distinct
// Source (file "<kind>.yaml", line = position in the argument list + 1).
func mkObjects(t testing.TB, objs ...metav1.Object) []loader.Object {
	t.Helper()
	out := make([]loader.Object, 0, len(objs))
	for i, o := range objs {
		kind := mkKindOf(t, o)
		out = append(out, loader.Object{Kind: kind, Obj: o, Source: mkSource(kind, i+1)})
	}
	return out
}

func mkSource(kind string, line int) loader.Source {
	return loader.Source{File: strings.ToLower(kind) + ".yaml", Line: line}
}

func mkKindOf(t testing.TB, o metav1.Object) string {
	t.Helper()
	switch o.(type) {
	case *corev1.Service:
		return "Service"
	case *corev1.Secret:
		return "Secret"
	case *discoveryv1.EndpointSlice:
		return "EndpointSlice"
	case *networkingv1.Ingress:
		return "Ingress"
	case *contourv1.TLSCertificateDelegation:
		return "TLSCertificateDelegation"
	case *contourv1.HTTPProxy:
		return "HTTPProxy"
	case *gatewayv1.Gateway:
		return "Gateway"
	case *networkingv1.IngressClass:
		return "IngressClass"
	}
	t.Fatalf("mkKindOf: unexpected object type %T", o)
	return ""
}

// mkAnnotate sets annotations given as key, value pairs and returns o.
func mkAnnotate[T metav1.Object](o T, kv ...string) T {
	a := o.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		a[kv[i]] = kv[i+1]
	}
	o.SetAnnotations(a)
	return o
}

// mkPort is a TCP Service port; name may be empty.
func mkPort(name string, port int32) corev1.ServicePort {
	return corev1.ServicePort{Name: name, Port: port, Protocol: corev1.ProtocolTCP}
}

// mkService is a ClusterIP Service.
func mkService(ns, name string, ports ...corev1.ServicePort) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Ports: ports},
	}
}

// mkSlicePort is a TCP EndpointSlice port; name may be empty (nil).
func mkSlicePort(name string, port int32) discoveryv1.EndpointPort {
	p := discoveryv1.EndpointPort{Port: &port, Protocol: refOf(corev1.ProtocolTCP)}
	if name != "" {
		p.Name = &name
	}
	return p
}

// mkEndpoint is an endpoint with the given addresses and ready condition
// (nil: unset).
func mkEndpoint(ready *bool, addrs ...string) discoveryv1.Endpoint {
	return discoveryv1.Endpoint{Addresses: addrs, Conditions: discoveryv1.EndpointConditions{Ready: ready}}
}

// mkEndpointSlice is an IPv4 EndpointSlice of Service svc.
func mkEndpointSlice(ns, name, svc string, ports []discoveryv1.EndpointPort, eps ...discoveryv1.Endpoint) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: name,
			Labels: map[string]string{discoveryv1.LabelServiceName: svc},
		},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   eps,
		Ports:       ports,
	}
}

func refOf[T any](v T) *T { return &v }

// mkIngress builds an Ingress; opts add rules, TLS, annotations...
func mkIngress(ns, name string, opts ...func(*networkingv1.Ingress)) *networkingv1.Ingress {
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	for _, o := range opts {
		o(ing)
	}
	return ing
}

// ingRule adds a rule for host ("" for none) with the given paths.
func ingRule(host string, paths ...networkingv1.HTTPIngressPath) func(*networkingv1.Ingress) {
	return func(ing *networkingv1.Ingress) {
		ing.Spec.Rules = append(ing.Spec.Rules, networkingv1.IngressRule{
			Host:             host,
			IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: paths}},
		})
	}
}

// ingTLS adds a TLS entry.
func ingTLS(secretName string, hosts ...string) func(*networkingv1.Ingress) {
	return func(ing *networkingv1.Ingress) {
		ing.Spec.TLS = append(ing.Spec.TLS, networkingv1.IngressTLS{Hosts: hosts, SecretName: secretName})
	}
}

// ingDefaultBackend sets spec.defaultBackend.
func ingDefaultBackend(svc string, port any) func(*networkingv1.Ingress) {
	return func(ing *networkingv1.Ingress) {
		b := ingBackend(svc, port)
		ing.Spec.DefaultBackend = &b
	}
}

// ingClassName sets spec.ingressClassName.
func ingClassName(class string) func(*networkingv1.Ingress) {
	return func(ing *networkingv1.Ingress) { ing.Spec.IngressClassName = &class }
}

// ingAnnotations sets annotations (key, value pairs).
func ingAnnotations(kv ...string) func(*networkingv1.Ingress) {
	return func(ing *networkingv1.Ingress) { mkAnnotate(ing, kv...) }
}

// ingBackend is a Service backend; port is an int (number) or a string (name).
func ingBackend(svc string, port any) networkingv1.IngressBackend {
	b := &networkingv1.IngressServiceBackend{Name: svc}
	switch p := port.(type) {
	case int:
		b.Port.Number = int32(p)
	case string:
		b.Port.Name = p
	default:
		panic("ingBackend: port must be int or string")
	}
	return networkingv1.IngressBackend{Service: b}
}

// ingPath is a path; pathType "" leaves pathType unset.
func ingPath(pathType networkingv1.PathType, path, svc string, port any) networkingv1.HTTPIngressPath {
	p := networkingv1.HTTPIngressPath{Path: path, Backend: ingBackend(svc, port)}
	if pathType != "" {
		p.PathType = &pathType
	}
	return p
}

const (
	ptPrefix   = networkingv1.PathTypePrefix
	ptExact    = networkingv1.PathTypeExact
	ptImplSpec = networkingv1.PathTypeImplementationSpecific
	ptUnset    = networkingv1.PathType("")
)

// mkDelegation is a TLSCertificateDelegation in ns delegating secret to
// targets.
func mkDelegation(ns, name, secret string, targets ...string) *contourv1.TLSCertificateDelegation {
	return &contourv1.TLSCertificateDelegation{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: contourv1.TLSCertificateDelegationSpec{Delegations: []contourv1.CertificateDelegation{{
			SecretName: secret, TargetNamespaces: targets,
		}}},
	}
}

// kuardObjects is the usual backend: Service default/kuard with port "http"
// 80 and one ready endpoint 10.0.0.1:8080.
func kuardObjects() []metav1.Object {
	return []metav1.Object{
		mkService("default", "kuard", mkPort("http", 80)),
		mkEndpointSlice("default", "kuard-abc", "kuard", []discoveryv1.EndpointPort{mkSlicePort("http", 8080)}, mkEndpoint(nil, "10.0.0.1")),
	}
}

// sdsName is the SDS name Contour gives a secret: <ns>/<name>/<sha1(cert)[:10]>,
// computed here independently of naming.go.
func wantSDSName(ns, name string, cert []byte) string {
	sum := sha1.Sum(cert) //nolint:gosec
	return ns + "/" + name + "/" + hex.EncodeToString(sum[:])[:10]
}

// ---- running --------------------------------------------------------------

// translateIngressT runs Translate on objs and fails the test on an error or
// on any resource that does not pass ValidateAll.
func translateIngressT(t testing.TB, opts Options, objs ...metav1.Object) *Result {
	t.Helper()
	res, err := Translate(mkObjects(t, objs...), opts)
	if err != nil {
		t.Fatalf("Translate: %v", err)
	}
	validateAllResources(t, res.Resources)
	return res
}

// resourceMessages lists every resource of r, by type.
func resourceMessages(r Resources) []proto.Message {
	var msgs []proto.Message
	for _, m := range r.Listeners {
		msgs = append(msgs, m)
	}
	for _, m := range r.RouteConfigs {
		msgs = append(msgs, m)
	}
	for _, m := range r.Clusters {
		msgs = append(msgs, m)
	}
	for _, m := range r.Endpoints {
		msgs = append(msgs, m)
	}
	for _, m := range r.Secrets {
		msgs = append(msgs, m)
	}
	for _, m := range r.Runtimes {
		msgs = append(msgs, m)
	}
	return msgs
}

// validateResources runs ValidateAll on every resource and on every message
// packed in an Any inside it, recursively.
func validateAllResources(t testing.TB, r Resources) {
	t.Helper()
	msgs := resourceMessages(r)
	for _, m := range msgs {
		validateMessageDeep(t, m, string(proto.MessageName(m)))
	}
	// Envoy rejects a discovery response naming a resource twice.
	seen := map[string]bool{}
	for _, m := range msgs {
		name := xdsResourceName(m)
		key := string(proto.MessageName(m)) + " " + name
		if seen[key] {
			t.Errorf("%s published twice", key)
		}
		seen[key] = true
	}
}

// resourceName is a resource's xDS name (cluster_name for a CLA).
func xdsResourceName(m proto.Message) string {
	if cla, ok := m.(*endpointv3.ClusterLoadAssignment); ok {
		return cla.ClusterName
	}
	if n, ok := m.(interface{ GetName() string }); ok {
		return n.GetName()
	}
	return ""
}

type allValidator interface{ ValidateAll() error }

func validateMessageDeep(t testing.TB, m proto.Message, where string) {
	t.Helper()
	if v, ok := m.(allValidator); ok {
		if err := v.ValidateAll(); err != nil {
			t.Errorf("%s: ValidateAll: %v", where, err)
		}
	}
	if d := findNegativeDuration(m.ProtoReflect()); d != "" {
		// Envoy rejects the whole resource ("Expected positive duration").
		t.Errorf("%s: negative duration %s", where, d)
	}
	for _, packed := range packedAnys(m.ProtoReflect()) {
		inner, err := packed.UnmarshalNew()
		if err != nil {
			t.Errorf("%s: unpacking %s: %v", where, packed.GetTypeUrl(), err)
			continue
		}
		validateMessageDeep(t, inner, where+" > "+packed.GetTypeUrl())
	}
}

// negativeDuration returns the first negative google.protobuf.Duration
// reachable from m (not inside an Any), "" if none.
func findNegativeDuration(m protoreflect.Message) string {
	found := ""
	walkProtoMessages(m, func(m protoreflect.Message) bool {
		if d, ok := m.Interface().(*durationpb.Duration); ok {
			if found == "" && (d.GetSeconds() < 0 || d.GetNanos() < 0) {
				found = d.AsDuration().String()
			}
			return false
		}
		_, isAny := m.Interface().(*anypb.Any)
		return !isAny
	})
	return found
}

// walkMessages calls visit on m and, while visit returns true, on every
// message field below it.
func walkProtoMessages(m protoreflect.Message, visit func(protoreflect.Message) bool) {
	if !visit(m) {
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind && fd.Kind() != protoreflect.GroupKind {
			return true
		}
		switch {
		case fd.IsList():
			for i := 0; i < v.List().Len(); i++ {
				walkProtoMessages(v.List().Get(i).Message(), visit)
			}
		case fd.IsMap():
			if fd.MapValue().Kind() == protoreflect.MessageKind {
				v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
					walkProtoMessages(mv.Message(), visit)
					return true
				})
			}
		default:
			walkProtoMessages(v.Message(), visit)
		}
		return true
	})
}

// packedAnys returns the Any messages reachable from m without crossing
// another Any.
func packedAnys(m protoreflect.Message) []*anypb.Any {
	var out []*anypb.Any
	walkProtoMessages(m, func(m protoreflect.Message) bool {
		if a, ok := m.Interface().(*anypb.Any); ok {
			out = append(out, a)
			return false
		}
		return true
	})
	return out
}

// ---- finding -------------------------------------------------------------

func findRouteConfig(r *Result, name string) *routev3.RouteConfiguration {
	for _, rc := range r.Resources.RouteConfigs {
		if rc.Name == name {
			return rc
		}
	}
	return nil
}

func findVirtualHost(rc *routev3.RouteConfiguration, name string) *routev3.VirtualHost {
	if rc == nil {
		return nil
	}
	for _, vh := range rc.VirtualHosts {
		if vh.Name == name {
			return vh
		}
	}
	return nil
}

// mustRoutes returns the routes of virtual host vhost in route config rc,
// failing the test when either is missing.
func mustRoutes(t testing.TB, r *Result, rc, vhost string) []*routev3.Route {
	t.Helper()
	cfg := findRouteConfig(r, rc)
	if cfg == nil {
		t.Fatalf("route config %q not found; have %v", rc, routeConfigNames(r))
	}
	vh := findVirtualHost(cfg, vhost)
	if vh == nil {
		t.Fatalf("virtual host %q not found in route config %q; have %v", vhost, rc, vhostNames(cfg))
	}
	return vh.Routes
}

func routeConfigNames(r *Result) []string {
	var out []string
	for _, rc := range r.Resources.RouteConfigs {
		out = append(out, rc.Name)
	}
	return out
}

func vhostNames(rc *routev3.RouteConfiguration) []string {
	var out []string
	for _, vh := range rc.GetVirtualHosts() {
		out = append(out, vh.Name)
	}
	return out
}

// routeWithMatch finds the route whose path specifier equals match's.
func routeWithMatch(routes []*routev3.Route, match *routev3.RouteMatch) *routev3.Route {
	for _, r := range routes {
		m := proto.Clone(r.Match).(*routev3.RouteMatch)
		m.Headers, m.QueryParameters = nil, nil
		if proto.Equal(m, match) {
			return r
		}
	}
	return nil
}

func wantPrefix(p string) *routev3.RouteMatch {
	return &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: p}}
}

func wantSegmentPrefix(p string) *routev3.RouteMatch {
	return &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_PathSeparatedPrefix{PathSeparatedPrefix: p}}
}

func wantExact(p string) *routev3.RouteMatch {
	return &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Path{Path: p}}
}

func wantRegex(re string) *routev3.RouteMatch {
	return &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_SafeRegex{SafeRegex: &matcherv3.RegexMatcher{Regex: re}}}
}

// mustRouteWithMatch is routeWithMatch failing the test when absent.
func mustRouteWithMatch(t testing.TB, routes []*routev3.Route, match *routev3.RouteMatch) *routev3.Route {
	t.Helper()
	if r := routeWithMatch(routes, match); r != nil {
		return r
	}
	t.Fatalf("no route with match %v among %v", match, routes)
	return nil
}

// routeCluster is the cluster a route forwards to ("" if none).
func forwardedCluster(r *routev3.Route) string { return r.GetRoute().GetCluster() }

func findCluster(r *Result, name string) *clusterv3.Cluster {
	for _, c := range r.Resources.Clusters {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func mustCluster(t testing.TB, r *Result, name string) *clusterv3.Cluster {
	t.Helper()
	if c := findCluster(r, name); c != nil {
		return c
	}
	var names []string
	for _, c := range r.Resources.Clusters {
		names = append(names, c.Name)
	}
	t.Fatalf("cluster %q not found; have %v", name, names)
	return nil
}

func findCLA(r *Result, name string) *endpointv3.ClusterLoadAssignment {
	for _, e := range r.Resources.Endpoints {
		if e.ClusterName == name {
			return e
		}
	}
	return nil
}

func findListener(r *Result, name string) *listenerv3.Listener {
	for _, l := range r.Resources.Listeners {
		if l.Name == name {
			return l
		}
	}
	return nil
}

func findSecret(r *Result, name string) *tlsv3.Secret {
	for _, s := range r.Resources.Secrets {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// sniChain returns the filter chain of listener l matching server name sni.
func sniChain(l *listenerv3.Listener, sni string) *listenerv3.FilterChain {
	for _, fc := range l.GetFilterChains() {
		for _, n := range fc.GetFilterChainMatch().GetServerNames() {
			if n == sni {
				return fc
			}
		}
	}
	return nil
}

// chainTLSContext unpacks a filter chain's DownstreamTlsContext.
func chainTLSContext(t testing.TB, fc *listenerv3.FilterChain) *tlsv3.DownstreamTlsContext {
	t.Helper()
	ctx := &tlsv3.DownstreamTlsContext{}
	if err := fc.GetTransportSocket().GetTypedConfig().UnmarshalTo(ctx); err != nil {
		t.Fatalf("filter chain transport socket: %v", err)
	}
	return ctx
}

// chainHCM unpacks a filter chain's HTTP connection manager.
func chainHCM(t testing.TB, fc *listenerv3.FilterChain) *hcmv3.HttpConnectionManager {
	t.Helper()
	for _, f := range fc.GetFilters() {
		if f.Name == "envoy.filters.network.http_connection_manager" {
			hcm := &hcmv3.HttpConnectionManager{}
			if err := f.GetTypedConfig().UnmarshalTo(hcm); err != nil {
				t.Fatalf("unpacking HCM: %v", err)
			}
			return hcm
		}
	}
	t.Fatalf("filter chain has no HTTP connection manager")
	return nil
}

// findNotice returns the first notice about kind namespace/name whose
// message contains every one of substrs.
func findNotice(r *Result, kind, name string, substrs ...string) *Notice {
	for i, n := range r.Notices {
		if n.Kind != kind || n.Name != name {
			continue
		}
		ok := true
		for _, s := range substrs {
			if !strings.Contains(n.Msg, s) {
				ok = false
				break
			}
		}
		if ok {
			return &r.Notices[i]
		}
	}
	return nil
}

func mustNotice(t testing.TB, r *Result, kind, name string, substrs ...string) *Notice {
	t.Helper()
	if n := findNotice(r, kind, name, substrs...); n != nil {
		return n
	}
	t.Fatalf("no notice for %s %s containing %q; notices: %v", kind, name, substrs, r.Notices)
	return nil
}

// noticesAbout returns the notices about kind namespace/name.
func noticesAbout(r *Result, kind, name string) []Notice {
	var out []Notice
	for _, n := range r.Notices {
		if n.Kind == kind && n.Name == name {
			out = append(out, n)
		}
	}
	return out
}
