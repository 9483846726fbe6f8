package translate

// Builders and status assertions for the HTTPProxy rule tests
// (httpproxy_test.go, httpproxy_policy_test.go, httpproxy_vhost_test.go).
// Objects are built in memory as the loader hands them over; every run goes
// through pxTranslate, which also runs ValidateAll on every resource.

import (
	"fmt"
	"strings"
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	contourv1alpha1 "github.com/projectcontour/contour/apis/projectcontour/v1alpha1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/internal/status"
)

// ---- objects ---------------------------------------------------------------

// pxObjects is mkObjects knowing the projectcontour.io kinds too.
func pxObjects(t testing.TB, objs ...metav1.Object) []loader.Object {
	t.Helper()
	out := make([]loader.Object, 0, len(objs))
	for i, o := range objs {
		var kind string
		switch o.(type) {
		case *contourv1.HTTPProxy:
			kind = "HTTPProxy"
		case *contourv1alpha1.ExtensionService:
			kind = "ExtensionService"
		default:
			kind = mkKindOf(t, o)
		}
		out = append(out, loader.Object{Kind: kind, Obj: o, Source: mkSource(kind, i+1)})
	}
	return out
}

// pxFlat flattens metav1.Objects and (nested) slices of them into one list.
func pxFlat(items ...any) []metav1.Object {
	var out []metav1.Object
	for _, it := range items {
		switch v := it.(type) {
		case metav1.Object:
			out = append(out, v)
		case []metav1.Object:
			out = append(out, v...)
		case []any:
			out = append(out, pxFlat(v...)...)
		default:
			panic(fmt.Sprintf("pxFlat: unexpected %T", it))
		}
	}
	return out
}

// pxTranslate runs Translate and validates every produced resource.
func pxTranslate(t testing.TB, opts Options, items ...any) *Result {
	t.Helper()
	res, err := Translate(pxObjects(t, pxFlat(items...)...), opts)
	if err != nil {
		t.Fatalf("Translate: %v", err)
	}
	validateAllResources(t, res.Resources)
	return res
}

// pxBackend is Service ns/name with port "http" 80 (one ready endpoint
// 10.0.0.1:8080) and an unnamed port 8443.
func pxBackend(ns, name string) []metav1.Object {
	return []metav1.Object{
		mkService(ns, name, mkPort("http", 80), mkPort("", 8443)),
		mkEndpointSlice(ns, name+"-abc", name,
			[]discoveryv1.EndpointPort{mkSlicePort("http", 8080), mkSlicePort("", 8443)},
			mkEndpoint(nil, "10.0.0.1")),
	}
}

type pxOpt func(*contourv1.HTTPProxy)

// pxProxy builds an HTTPProxy (generation 1).
func pxProxy(ns, name string, opts ...pxOpt) *contourv1.HTTPProxy {
	p := &contourv1.HTTPProxy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Generation: 1}}
	for _, o := range opts {
		o(p)
	}
	return p
}

// pxFQDN makes the proxy a root for host.
func pxFQDN(host string) pxOpt {
	return func(p *contourv1.HTTPProxy) {
		if p.Spec.VirtualHost == nil {
			p.Spec.VirtualHost = &contourv1.VirtualHost{}
		}
		p.Spec.VirtualHost.Fqdn = host
	}
}

// pxVhost edits the virtual host (created with an empty fqdn if absent).
func pxVhost(f func(*contourv1.VirtualHost)) pxOpt {
	return func(p *contourv1.HTTPProxy) {
		if p.Spec.VirtualHost == nil {
			p.Spec.VirtualHost = &contourv1.VirtualHost{}
		}
		f(p.Spec.VirtualHost)
	}
}

// pxTLS sets virtualhost.tls.
func pxTLS(tls contourv1.TLS) pxOpt {
	return pxVhost(func(vh *contourv1.VirtualHost) { vh.TLS = &tls })
}

// pxTLSSecret terminates TLS with secret.
func pxTLSSecret(secret string) pxOpt { return pxTLS(contourv1.TLS{SecretName: secret}) }

func pxRoutes(rs ...contourv1.Route) pxOpt {
	return func(p *contourv1.HTTPProxy) { p.Spec.Routes = append(p.Spec.Routes, rs...) }
}

func pxIncludes(incs ...contourv1.Include) pxOpt {
	return func(p *contourv1.HTTPProxy) { p.Spec.Includes = append(p.Spec.Includes, incs...) }
}

func pxTCP(tp contourv1.TCPProxy) pxOpt {
	return func(p *contourv1.HTTPProxy) { p.Spec.TCPProxy = &tp }
}

// pxRoute is a route to services with conditions.
func pxRoute(conds []contourv1.MatchCondition, services ...contourv1.Service) contourv1.Route {
	return contourv1.Route{Conditions: conds, Services: services}
}

// pxRouteTo is a route without conditions.
func pxRouteTo(services ...contourv1.Service) contourv1.Route { return pxRoute(nil, services...) }

// pxEdit returns v changed by f.
func pxEdit[T any](v T, f func(*T)) T {
	f(&v)
	return v
}

func pxSvc(name string, port int) contourv1.Service { return contourv1.Service{Name: name, Port: port} }

func pxConds(cs ...contourv1.MatchCondition) []contourv1.MatchCondition { return cs }

func pxPrefix(p string) contourv1.MatchCondition { return contourv1.MatchCondition{Prefix: p} }
func pxExact(p string) contourv1.MatchCondition  { return contourv1.MatchCondition{Exact: p} }
func pxRegex(p string) contourv1.MatchCondition  { return contourv1.MatchCondition{Regex: p} }

func pxHeader(h contourv1.HeaderMatchCondition) contourv1.MatchCondition {
	return contourv1.MatchCondition{Header: &h}
}

func pxQuery(q contourv1.QueryParameterMatchCondition) contourv1.MatchCondition {
	return contourv1.MatchCondition{QueryParameter: &q}
}

func pxInclude(name, ns string, cs ...contourv1.MatchCondition) contourv1.Include {
	return contourv1.Include{Name: name, Namespace: ns, Conditions: cs}
}

// ---- status -----------------------------------------------------------------

// pxFindStatus returns the status of kind ns/name, nil if none.
func pxFindStatus(res *Result, kind, ns, name string) *ObjectStatus {
	for i, s := range res.Status {
		if s.Kind == kind && s.Namespace == ns && s.Name == name {
			return &res.Status[i]
		}
	}
	return nil
}

func pxMustStatus(t testing.TB, res *Result, ns, name string) HTTPProxyStatus {
	t.Helper()
	s := pxFindStatus(res, "HTTPProxy", ns, name)
	if s == nil {
		t.Fatalf("no status for HTTPProxy %s/%s", ns, name)
	}
	st, ok := s.Status.(HTTPProxyStatus)
	if !ok {
		t.Fatalf("status of HTTPProxy %s/%s is a %T", ns, name, s.Status)
	}
	if s.APIVersion != "projectcontour.io/v1" {
		t.Errorf("HTTPProxy %s/%s: apiVersion %q", ns, name, s.APIVersion)
	}
	return st
}

// pxWant is an expected status: currentStatus ("valid", "invalid",
// "orphaned") and the errors and warnings, each "Type/Reason: message"; a
// trailing "*" makes the message a prefix.
type pxWant struct {
	current  string
	errors   []string
	warnings []string
}

func pxValid(warnings ...string) pxWant { return pxWant{current: "valid", warnings: warnings} }

func pxInvalid(errors ...string) pxWant { return pxWant{current: "invalid", errors: errors} }

func pxOrphaned() pxWant {
	return pxWant{current: "orphaned", errors: []string{"Orphaned/Orphaned: " + status.OrphanMessage}}
}

func pxDetails(ds []status.Detail) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Type+"/"+d.Reason+": "+d.Message)
		if d.Status != "True" {
			out[len(out)-1] += fmt.Sprintf(" (status %q)", d.Status)
		}
	}
	return out
}

func pxMatchDetails(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		w := want[i]
		if strings.HasSuffix(w, "*") {
			if !strings.HasPrefix(got[i], strings.TrimSuffix(w, "*")) {
				return false
			}
		} else if got[i] != w {
			return false
		}
	}
	return true
}

// pxCheck asserts the whole status of HTTPProxy ns/name.
func pxCheck(t testing.TB, res *Result, ns, name string, w pxWant) {
	t.Helper()
	st := pxMustStatus(t, res, ns, name)
	if len(st.Conditions) != 1 {
		t.Fatalf("HTTPProxy %s/%s: %d conditions, want 1", ns, name, len(st.Conditions))
	}
	c := st.Conditions[0]
	if c.Type != "Valid" || c.ObservedGeneration != 1 {
		t.Errorf("HTTPProxy %s/%s: condition type %q generation %d", ns, name, c.Type, c.ObservedGeneration)
	}
	if st.CurrentStatus != w.current {
		t.Errorf("HTTPProxy %s/%s: currentStatus %q, want %q\nerrors: %q", ns, name, st.CurrentStatus, w.current, pxDetails(c.Errors))
	}
	switch w.current {
	case "valid":
		if c.Status != "True" || c.Reason != "Valid" || c.Message != "Valid HTTPProxy" || st.Description != "Valid HTTPProxy" {
			t.Errorf("HTTPProxy %s/%s: condition %s/%s %q, description %q", ns, name, c.Status, c.Reason, c.Message, st.Description)
		}
	default:
		wantDesc := "At least one error present, see Errors for details"
		if c.Status != "False" || c.Reason != "ErrorPresent" || c.Message != wantDesc {
			t.Errorf("HTTPProxy %s/%s: condition %s/%s %q", ns, name, c.Status, c.Reason, c.Message)
		}
		if w.current == "orphaned" {
			wantDesc = status.OrphanMessage
		}
		if st.Description != wantDesc {
			t.Errorf("HTTPProxy %s/%s: description %q, want %q", ns, name, st.Description, wantDesc)
		}
	}
	if got := pxDetails(c.Errors); !pxMatchDetails(got, w.errors) {
		t.Errorf("HTTPProxy %s/%s errors:\n got  %q\n want %q", ns, name, got, w.errors)
	}
	if got := pxDetails(c.Warnings); !pxMatchDetails(got, w.warnings) {
		t.Errorf("HTTPProxy %s/%s warnings:\n got  %q\n want %q", ns, name, got, w.warnings)
	}
}

// ---- envoy output -------------------------------------------------------------

// pxRoutesOf returns the routes of host in route config rc, nil when the
// configuration or the virtual host is absent.
func pxRoutesOf(res *Result, rc, host string) []*routev3.Route {
	return findVirtualHost(findRouteConfig(res, rc), dag.VirtualHostName(host)).GetRoutes()
}

// pxDescribe is a one-line summary of a route: match and action.
func pxDescribe(r *routev3.Route) string {
	var b strings.Builder
	m := r.GetMatch()
	switch {
	case m.GetPrefix() != "":
		b.WriteString("prefix " + m.GetPrefix())
	case m.GetPath() != "":
		b.WriteString("exact " + m.GetPath())
	case m.GetSafeRegex() != nil:
		b.WriteString("regex " + m.GetSafeRegex().GetRegex())
	case m.GetPathSeparatedPrefix() != "":
		b.WriteString("segment " + m.GetPathSeparatedPrefix())
	}
	for _, h := range m.GetHeaders() {
		b.WriteString(" header " + h.GetName())
	}
	for _, q := range m.GetQueryParameters() {
		b.WriteString(" query " + q.GetName())
	}
	switch {
	case r.GetRedirect() != nil && r.GetRedirect().GetHttpsRedirect():
		b.WriteString(" -> https")
	case r.GetRedirect() != nil:
		b.WriteString(" -> redirect")
	case r.GetDirectResponse() != nil:
		fmt.Fprintf(&b, " -> %d", r.GetDirectResponse().GetStatus())
	case r.GetRoute().GetCluster() != "":
		b.WriteString(" -> " + r.GetRoute().GetCluster())
	case r.GetRoute().GetWeightedClusters() != nil:
		var names []string
		for _, c := range r.GetRoute().GetWeightedClusters().GetClusters() {
			names = append(names, fmt.Sprintf("%s:%d", c.GetName(), c.GetWeight().GetValue()))
		}
		b.WriteString(" -> [" + strings.Join(names, " ") + "]")
	}
	return b.String()
}

func pxDescribeAll(rs []*routev3.Route) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, pxDescribe(r))
	}
	return out
}

// pxCheckRoutes asserts the summaries of host's routes in rc, in order.
func pxCheckRoutes(t testing.TB, res *Result, rc, host string, want ...string) {
	t.Helper()
	got := pxDescribeAll(pxRoutesOf(res, rc, host))
	if want == nil {
		want = []string{}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s %s routes:\n got  %q\n want %q", rc, host, got, want)
	}
}

// pxClusterNames lists the published clusters.
func pxClusterNames(res *Result) []string {
	var out []string
	for _, c := range res.Resources.Clusters {
		out = append(out, c.Name)
	}
	return out
}

// pxPlain is the name of the settings-free cluster of ns/name port 80.
func pxPlain(ns, name string) string { return ns + "/" + name + "/80/da39a3ee5e" }
