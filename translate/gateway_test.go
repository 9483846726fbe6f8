package translate

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/gatewayapi"
)

// defaultGatewayController is Contour's controller, of the GatewayClasses
// of the end-to-end tests here and in ingress_status_test.go.
const defaultGatewayController = gatewayapi.DefaultController

func hostnamePtr(h string) *gatewayv1.Hostname { x := gatewayv1.Hostname(h); return &x }

func listener(name string, port int32, proto gatewayv1.ProtocolType, host string) gatewayv1.Listener {
	l := gatewayv1.Listener{Name: gatewayv1.SectionName(name), Port: gatewayv1.PortNumber(port), Protocol: proto}
	if host != "" {
		l.Hostname = hostnamePtr(host)
	}
	return l
}

func TestGatewaySelection(t *testing.T) {
	class := func(name, controller string) loader.Object {
		return loader.Object{Kind: "GatewayClass", Obj: &gatewayv1.GatewayClass{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:       gatewayv1.GatewayClassSpec{ControllerName: gatewayv1.GatewayController(controller)},
		}}
	}
	gateway := func(ns, name, class string) loader.Object {
		return loader.Object{Kind: "Gateway", Obj: &gatewayv1.Gateway{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: gatewayv1.GatewaySpec{GatewayClassName: gatewayv1.ObjectName(class),
				Listeners: []gatewayv1.Listener{listener("http", 80, gatewayv1.HTTPProtocolType, "")}},
		}}
	}
	contour := class("contour", defaultGatewayController)
	other := class("other", "example.com/controller")
	tests := []struct {
		name       string
		objs       []loader.Object
		opts       Options
		want       string
		wantErr    string
		wantNotice string
	}{
		{"the only Contour Gateway", []loader.Object{contour, other, gateway("a", "gw", "contour"), gateway("b", "x", "other")}, Options{}, "a/gw", "", ""},
		{"none: Gateway API ignored", []loader.Object{other, gateway("b", "x", "other")}, Options{}, "", "", ""},
		{"several: an error naming them", []loader.Object{contour, gateway("a", "one", "contour"), gateway("b", "two", "contour")}, Options{}, "", "a/one, b/two", ""},
		{"--gateway picks one", []loader.Object{contour, gateway("a", "one", "contour"), gateway("b", "two", "contour")}, Options{Gateway: &types.NamespacedName{Namespace: "b", Name: "two"}}, "b/two", "", ""},
		{"--gateway of a class not in the input: the class assumed, with Contour's controller", []loader.Object{gateway("a", "gw", "missing")}, Options{Gateway: &types.NamespacedName{Namespace: "a", Name: "gw"}}, "a/gw", "",
			"GatewayClass missing: not in the input: assumed to be the cluster's, with controller projectcontour.io/gateway-controller, for Gateway a/gw"},
		{"--gateway of a class of the cluster context: no assumption", []loader.Object{gateway("a", "gw", "platform")}, Options{Gateway: &types.NamespacedName{Namespace: "a", Name: "gw"}, Cluster: []loader.Object{class("platform", defaultGatewayController)}}, "a/gw", "", ""},
		{"--gateway of a Gateway of the cluster context", nil, Options{Gateway: &types.NamespacedName{Namespace: "a", Name: "gw"}, Cluster: []loader.Object{contour, gateway("a", "gw", "contour")}}, "a/gw", "", ""},
		{"--gateway naming no Gateway: an error naming it", []loader.Object{contour, gateway("a", "gw", "contour")}, Options{Gateway: &types.NamespacedName{Namespace: "a", Name: "nope"}, RequireGateway: true}, "", "--gateway a/nope: no Gateway a/nope in the input", ""},
		{"a Gateway named but not required: nothing served, as in Contour", []loader.Object{contour, gateway("a", "gw", "contour")}, Options{Gateway: &types.NamespacedName{Namespace: "a", Name: "nope"}}, "", "", ""},
		{"another controller", []loader.Object{contour, other, gateway("b", "x", "other")}, Options{GatewayController: "example.com/controller"}, "b/x", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Translate(tt.objs, tt.opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if res.Gateway != nil {
				got = res.Gateway.String()
			}
			if got != tt.want {
				t.Errorf("served %q, want %q", got, tt.want)
			}
			var notices []string
			for _, n := range res.Notices {
				if n.Kind == "GatewayClass" {
					notices = append(notices, n.String())
				}
			}
			if tt.wantNotice == "" && len(notices) > 0 || tt.wantNotice != "" && (len(notices) != 1 || !strings.HasPrefix(notices[0], tt.wantNotice)) {
				t.Errorf("GatewayClass notices %q, want one starting %q", notices, tt.wantNotice)
			}
			for _, st := range res.Status {
				if st.Kind == "Gateway" && len(tt.opts.Cluster) > 0 && tt.objs == nil {
					t.Errorf("status of the cluster context's Gateway %s/%s listed", st.Namespace, st.Name)
				}
			}
		})
	}
}
