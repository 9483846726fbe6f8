package translate

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/contourc/contourc/loader"
)

// mkRootProxy is a root HTTPProxy for fqdn routing to service:80.
func mkRootProxy(ns, name, fqdn, service string) *contourv1.HTTPProxy {
	return &contourv1.HTTPProxy{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: contourv1.HTTPProxySpec{
			VirtualHost: &contourv1.VirtualHost{Fqdn: fqdn},
			Routes:      []contourv1.Route{{Services: []contourv1.Service{{Name: service, Port: 80}}}},
		},
	}
}

// hasRoutesFor says whether a route configuration has a virtual host for
// host.
func hasRoutesFor(res *Result, host string) bool {
	for _, rc := range res.Resources.RouteConfigs {
		for _, vh := range rc.GetVirtualHosts() {
			if slices.Contains(vh.Domains, host) {
				return true
			}
		}
	}
	return false
}

// statusOf finds an object's entry in a status list.
func statusOf(res *Result, kind, ns, name string) *ObjectStatus {
	for i, st := range res.Status {
		if st.Kind == kind && st.Namespace == ns && st.Name == name {
			return &res.Status[i]
		}
	}
	return nil
}

// TestClusterObjectsResolveReferences checks that an object of the
// cluster (a Service an operator makes) resolves the input's references
// to it, and that it gets no status: it is not the repository's.
func TestClusterObjectsResolveReferences(t *testing.T) {
	objs := mkObjects(t, mkRootProxy("web", "app", "app.example.com", "app"))
	res, err := Translate(objs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v := statusOf(res, "HTTPProxy", "web", "app").Status.(HTTPProxyStatus).CurrentStatus; v != "invalid" {
		t.Fatalf("without the cluster's Service: %s, want invalid", v)
	}
	cluster := mkObjects(t, mkService("web", "app", mkPort("http", 80)), mkRootProxy("platform", "root", "platform.example.com", "app"))
	res, err = Translate(objs, Options{Cluster: cluster})
	if err != nil {
		t.Fatal(err)
	}
	if v := statusOf(res, "HTTPProxy", "web", "app").Status.(HTTPProxyStatus).CurrentStatus; v != "valid" {
		t.Errorf("with the cluster's Service: %s, want valid", v)
	}
	if st := statusOf(res, "HTTPProxy", "platform", "root"); st != nil {
		t.Errorf("the cluster's HTTPProxy is listed: %+v", st)
	}
	if len(res.Status) != 1 {
		t.Errorf("statuses %v, want only the input's HTTPProxy", res.Status)
	}
	if !hasRoutesFor(res, "platform.example.com") {
		t.Errorf("the cluster's root HTTPProxy is not served")
	}
}

// TestClusterObjectsInputWins checks that an object both in the input and
// in the cluster context is the input's, with a notice naming both.
func TestClusterObjectsInputWins(t *testing.T) {
	objs := mkObjects(t, mkService("web", "app", mkPort("http", 80)), mkRootProxy("web", "app", "app.example.com", "app"))
	cluster := []loader.Object{{Kind: "Service", Obj: mkService("web", "app", mkPort("http", 8080)), Source: loader.Source{File: "dump.yaml", Line: 7}}}
	res, err := Translate(objs, Options{Cluster: cluster})
	if err != nil {
		t.Fatal(err)
	}
	if v := statusOf(res, "HTTPProxy", "web", "app").Status.(HTTPProxyStatus).CurrentStatus; v != "valid" {
		t.Errorf("the input's Service (port 80) not used: %s", v)
	}
	want := "service.yaml:1: Service web/app: also the cluster's (dump.yaml:7): the input's is used"
	if !slices.ContainsFunc(res.Notices, func(n Notice) bool { return n.String() == want }) {
		t.Errorf("notices %v, want %q", res.Notices, want)
	}
}

// TestClusterObjectsAnyOrder checks that the result does not depend on
// the order either list is given in.
func TestClusterObjectsAnyOrder(t *testing.T) {
	objs := mkObjects(t, mkRootProxy("web", "b", "b.example.com", "b"), mkRootProxy("web", "a", "a.example.com", "a"))
	cluster := mkObjects(t, mkService("web", "b", mkPort("http", 80)), mkService("web", "a", mkPort("http", 80)))
	var outs []string
	for _, rev := range []bool{false, true} {
		o, c := slices.Clone(objs), slices.Clone(cluster)
		if rev {
			slices.Reverse(o)
			slices.Reverse(c)
		}
		res, err := Translate(o, Options{Cluster: c})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res.Status)
		outs = append(outs, string(b))
	}
	if outs[0] != outs[1] || strings.Contains(outs[0], "invalid") {
		t.Errorf("statuses differ with the order, or are invalid:\n%s\n%s", outs[0], outs[1])
	}
}

// TestIngressEntries checks the Ingresses' entries in the status list:
// findings for one not served as written, none for one that is, and why
// one of another class (here the cluster's default one) is ignored.
func TestIngressEntries(t *testing.T) {
	nginx := mkAnnotate(&networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "nginx"}}, networkingv1.AnnotationIsDefaultIngressClass, "true")
	svc := mkService("web", "web", mkPort("http", 80))
	served := mkIngress("web", "ok", ingClassName("contour"), ingRule("ok.example.com", ingPath(ptPrefix, "/", "web", 80)))
	noTLS := mkIngress("web", "tls", ingClassName("contour"), ingTLS("missing", "tls.example.com"), ingRule("tls.example.com", ingPath(ptPrefix, "/", "web", 80)))
	classless := mkIngress("web", "classless", ingRule("c.example.com", ingPath(ptPrefix, "/", "web", 80)))
	res := translateIngressT(t, Options{}, svc, served, noTLS, classless, nginx)
	var got []string
	for _, st := range res.Status {
		if st.Kind != "Ingress" || st.Status != nil || st.Findings == nil {
			t.Errorf("entry %+v: want an Ingress with no status and a findings list", st)
			continue
		}
		got = append(got, st.Namespace+"/"+st.Name+" "+strings.Join(st.Findings, "; ")+" "+st.Ignored+" "+st.Source.String())
	}
	want := []string{
		`web/classless  ingress class "nginx", the cluster's default IngressClass, is not served (Contour serves no class or "contour") ingress.yaml:4`,
		"web/ok   ingress.yaml:2",
		"web/tls TLS for tls.example.com left out: secret web/missing: Secret not found  ingress.yaml:3",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Ingress entries\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	b, _ := json.Marshal(statusOf(res, "Ingress", "web", "ok"))
	if want := `{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","namespace":"web","name":"ok","status":null,"findings":[]}`; string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
}

// TestDefaultIngressClassOfTheCluster checks that a default IngressClass
// of the cluster context is the class of class-less Ingresses: the
// cluster's own default class being Contour's, they are served.
func TestDefaultIngressClassOfTheCluster(t *testing.T) {
	svc := mkService("web", "web", mkPort("http", 80))
	classless := mkIngress("web", "classless", ingRule("c.example.com", ingPath(ptPrefix, "/", "web", 80)))
	contourClass := mkAnnotate(&networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "contour"}}, networkingv1.AnnotationIsDefaultIngressClass, "true")
	nginxClass := mkAnnotate(&networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "nginx"}}, networkingv1.AnnotationIsDefaultIngressClass, "true")
	for _, tt := range []struct {
		name    string
		cluster []metav1.Object
		opts    Options
		served  bool
	}{
		{"no default class: no class is Contour's", nil, Options{}, true},
		{"Contour's default class", []metav1.Object{contourClass}, Options{}, true},
		{"another controller's default class", []metav1.Object{nginxClass}, Options{}, false},
		{"the default class is the one served", []metav1.Object{nginxClass}, Options{IngressClassNames: []string{"nginx"}}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Cluster = mkObjects(t, tt.cluster...)
			res, err := Translate(mkObjects(t, svc, classless), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := hasRoutesFor(res, "c.example.com"); got != tt.served {
				t.Errorf("served %v, want %v", got, tt.served)
			}
			if st := statusOf(res, "Ingress", "web", "classless"); st == nil || (st.Ignored == "") != tt.served {
				t.Errorf("entry %+v, want ignored %v", st, !tt.served)
			}
			if classless.Spec.IngressClassName != nil {
				t.Errorf("the input's Ingress was changed: class %q", *classless.Spec.IngressClassName)
			}
		})
	}
}

// TestStatusOnlyNoticesOfClusterServices checks that check's quick path
// still gives the notice about a route to a Service of the cluster without
// endpoints, and none when nothing routes to it.
func TestStatusOnlyNoticesOfClusterServices(t *testing.T) {
	cluster := mkObjects(t, mkService("default", "kubernetes", mkPort("https", 443)))
	routed := mkRootProxy("default", "api", "api.example.com", "kubernetes")
	routed.Spec.Routes[0].Services[0].Port = 443
	notices := func(objs []loader.Object, statusOnly bool) []string {
		res, err := Translate(objs, Options{Cluster: cluster, StatusOnly: statusOnly})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, n := range res.Notices {
			out = append(out, n.String())
		}
		return out
	}
	objs := mkObjects(t, routed)
	full, quick := notices(objs, false), notices(objs, true)
	if len(full) != 1 || !strings.Contains(full[0], "Service default/kubernetes: port 443 has no endpoints") || !slices.Equal(full, quick) {
		t.Errorf("notices %q, status only %q; want the same one about default/kubernetes", full, quick)
	}
	if got := notices(mkObjects(t, mkRootProxy("web", "app", "app.example.com", "app")), true); slices.ContainsFunc(got, func(n string) bool { return strings.Contains(n, "kubernetes") }) {
		t.Errorf("notices %q about a Service nothing routes to", got)
	}
}

// TestMemoKeepsAdmittedIngresses checks that with a Memo the Ingresses
// given the default class are the same objects from one translation to
// the next, so that the Memo's index sees them unchanged.
func TestMemoKeepsAdmittedIngresses(t *testing.T) {
	nginx := mkAnnotate(&networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "nginx"}}, networkingv1.AnnotationIsDefaultIngressClass, "true")
	objs := mkObjects(t, mkIngress("web", "a", ingRule("a.example.com", ingPath(ptPrefix, "/", "web", 80))), nginx)
	m := NewMemo()
	admitted := func() *networkingv1.Ingress {
		if _, err := Translate(objs, Options{Memo: m}); err != nil {
			t.Fatal(err)
		}
		for _, o := range m.index.Objects() {
			if ing, ok := o.Obj.(*networkingv1.Ingress); ok {
				return ing
			}
		}
		t.Fatal("no Ingress indexed")
		return nil
	}
	first, again := admitted(), admitted()
	if first != again || first == objs[0].Obj || first.Spec.IngressClassName == nil {
		t.Errorf("the admitted Ingress was copied again, or not admitted")
	}
}
