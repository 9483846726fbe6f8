package ingress

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/dag/index"
	"github.com/contourc/contourc/translate/internal/status"
)

// TestProcessor runs the processor on its own, as translate does: a path
// to a Service becomes a route of the HTTP listener's virtual host, a path
// to a missing Service is left out with a notice, and the Ingress's entry
// in the status list carries that notice as its finding. The Ingress
// tests through Translate (translate's ingress_test.go,
// annotations_test.go) cover the rest.
func TestProcessor(t *testing.T) {
	prefix := networkingv1.PathTypePrefix
	path := func(p, svc string) networkingv1.HTTPIngressPath {
		return networkingv1.HTTPIngressPath{Path: p, PathType: &prefix, Backend: networkingv1.IngressBackend{
			Service: &networkingv1.IngressServiceBackend{Name: svc, Port: networkingv1.ServiceBackendPort{Number: 80}}}}
	}
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "web", Name: "web"},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: "web.example.com",
			IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
				Paths: []networkingv1.HTTPIngressPath{path("/", "web"), path("/gone", "gone")}}}}}}}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "web", Name: "web"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}}}}
	objs := []loader.Object{
		{Kind: "Ingress", Obj: ing, Source: loader.Source{File: "ingress.yaml", Line: 1}},
		{Kind: "Service", Obj: svc, Source: loader.Source{File: "service.yaml", Line: 1}},
	}
	d := dag.NewDAG()
	http := d.AddListener(&dag.Listener{Name: "ingress_http", Protocol: "http", Port: 8080})
	var notices []status.Notice
	p := &Processor{DAG: d, Index: index.New(objs, index.Options{}), Notices: &notices}
	p.Run()

	vh := http.VHosts["web.example.com"]
	if vh == nil || len(vh.Routes) != 1 {
		t.Fatalf("virtual host %+v, want one route", vh)
	}
	for _, r := range vh.Routes {
		if r.PathMatch != (dag.PathMatch{Kind: dag.PathPrefix, Value: "/"}) || r.Clusters[0].Upstream.Name != "web" || r.Kind != "Ingress" {
			t.Errorf("route %+v, want / to web", r)
		}
	}
	if len(notices) != 1 || !strings.HasPrefix(notices[0].Msg, `path "/gone" left out: `) || notices[0].Name != "web/web" {
		t.Fatalf("notices %v, want one for /gone of web/web", notices)
	}
	sts := p.Statuses(objs, nil)
	if len(sts) != 1 || sts[0].Kind != "Ingress" || sts[0].Ignored != "" || !slices.Equal(sts[0].Findings, []string{notices[0].Msg}) {
		t.Errorf("statuses %+v, want web/web's entry with the notice as its finding", sts)
	}
}

// TestIgnoredClass checks the three ways an Ingress's class is not served.
func TestIgnoredClass(t *testing.T) {
	tests := []struct {
		class, defaultClass string
		classNames          []string
		want                string
	}{
		{"nginx", "", nil, `ingress class "nginx" is not served (Contour serves no class or "contour")`},
		{"", "", []string{"a", "b"}, `no ingress class: not served (Contour serves "a", "b")`},
		{"nginx", "nginx", []string{"a"}, `ingress class "nginx", the cluster's default IngressClass, is not served (Contour serves "a")`},
	}
	for _, tt := range tests {
		if got := ignoredClass(tt.class, tt.defaultClass, tt.classNames); got != tt.want {
			t.Errorf("ignoredClass(%q, %q, %q) = %q, want %q", tt.class, tt.defaultClass, tt.classNames, got, tt.want)
		}
	}
}
