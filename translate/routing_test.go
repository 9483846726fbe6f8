package translate

import (
	"slices"
	"testing"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestVirtualHostRoutes: lint's view lists each served virtual host with
// its routes in Envoy's order, and HTTPProxyRouteKey gives the key of the
// route the DAG holds for the same conditions (include chain first).
func TestVirtualHostRoutes(t *testing.T) {
	svc := mkService("default", "s1", mkPort("http", 80))
	route := func(conds ...contourv1.MatchCondition) contourv1.Route {
		return contourv1.Route{Conditions: conds, Services: []contourv1.Service{{Name: "s1", Port: 80}}}
	}
	root := &contourv1.HTTPProxy{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "root"}, Spec: contourv1.HTTPProxySpec{
		VirtualHost: &contourv1.VirtualHost{Fqdn: "a.com"},
		Includes:    []contourv1.Include{{Name: "child", Conditions: []contourv1.MatchCondition{{Prefix: "/app"}}}},
		Routes:      []contourv1.Route{route(contourv1.MatchCondition{Prefix: "/"}), route(contourv1.MatchCondition{Regex: "/x.*"})},
	}}
	child := &contourv1.HTTPProxy{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "child"}, Spec: contourv1.HTTPProxySpec{
		Routes: []contourv1.Route{route(contourv1.MatchCondition{Prefix: "/v1"})},
	}}
	res, err := Translate(mkObjects(t, svc, root, child), Options{StatusOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	vhs := res.VirtualHostRoutes()
	if len(vhs) != 1 || vhs[0].Listener != "ingress_http" || vhs[0].Name != "a.com" {
		t.Fatalf("virtual hosts %+v, want ingress_http a.com", vhs)
	}
	var order []string
	for _, r := range vhs[0].Routes {
		order = append(order, r.PathMatch.Value+" "+r.Name)
	}
	if want := []string{"/x.* root", "/app/v1 child", "/ root"}; !slices.Equal(order, want) {
		t.Errorf("routes %v, want %v (regex, then longer prefixes first)", order, want)
	}
	key, ok := HTTPProxyRouteKey([]contourv1.MatchCondition{{Prefix: "/app"}}, []contourv1.MatchCondition{{Prefix: "/v1"}})
	if !ok || key != RouteKey(vhs[0].Routes[1]) {
		t.Errorf("HTTPProxyRouteKey %q %v, want the DAG route's %q", key, ok, RouteKey(vhs[0].Routes[1]))
	}
	if _, ok := HTTPProxyRouteKey(nil, []contourv1.MatchCondition{{Prefix: "/a"}, {Exact: "/b"}}); ok {
		t.Error("two path conditions in one block: want refused, as Contour refuses the route")
	}
	if (&Result{}).VirtualHostRoutes() != nil {
		t.Error("a Result without a DAG has no virtual hosts")
	}
}
