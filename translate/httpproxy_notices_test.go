package translate

import (
	"testing"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/contourc/contourc/loader"
)

// TestHTTPProxyPoliciesRaiseNoNotices guards against warning that a
// translated feature is "not supported": a proxy using virtual-host and
// route policies must translate without notices.
func TestHTTPProxyPoliciesRaiseNoNotices(t *testing.T) {
	proxy := &contourv1.HTTPProxy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "app"},
		Spec: contourv1.HTTPProxySpec{
			VirtualHost: &contourv1.VirtualHost{
				Fqdn:                "app.example.com",
				CORSPolicy:          &contourv1.CORSPolicy{AllowOrigin: []string{"*"}, AllowMethods: []contourv1.CORSHeaderValue{"GET"}},
				RateLimitPolicy:     &contourv1.RateLimitPolicy{Local: &contourv1.LocalRateLimitPolicy{Requests: 10, Unit: "second"}},
				IPAllowFilterPolicy: []contourv1.IPFilterPolicy{{Source: contourv1.IPFilterSourcePeer, CIDR: "10.0.0.0/8"}},
			},
			Routes: []contourv1.Route{{
				Services:             []contourv1.Service{{Name: "kuard", Port: 80}},
				AuthPolicy:           &contourv1.AuthorizationPolicy{Disabled: true},
				RateLimitPolicy:      &contourv1.RateLimitPolicy{Local: &contourv1.LocalRateLimitPolicy{Requests: 1, Unit: "minute"}},
				IPDenyFilterPolicy:   []contourv1.IPFilterPolicy{{Source: contourv1.IPFilterSourceRemote, CIDR: "192.168.0.1"}},
				TimeoutPolicy:        &contourv1.TimeoutPolicy{IdleConnection: "30s"},
				RetryPolicy:          &contourv1.RetryPolicy{NumRetries: 2},
				HealthCheckPolicy:    &contourv1.HTTPHealthCheckPolicy{Path: "/healthz"},
				LoadBalancerPolicy:   &contourv1.LoadBalancerPolicy{Strategy: "Cookie"},
				PathRewritePolicy:    &contourv1.PathRewritePolicy{ReplacePrefix: []contourv1.ReplacePrefix{{Replacement: "/v1"}}},
				RequestHeadersPolicy: &contourv1.HeadersPolicy{Set: []contourv1.HeaderValue{{Name: "X-App", Value: "kuard"}}},
			}},
		},
	}
	objs := append(mkObjects(t, withKuard()...), loader.Object{Kind: "HTTPProxy", Obj: proxy})
	res, err := Translate(objs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range res.Notices {
		if n.Kind == "HTTPProxy" {
			t.Errorf("unexpected notice: %s", n)
		}
	}
	validateAllResources(t, res.Resources)
	if findRouteConfig(res, "ingress_http") == nil {
		t.Fatal("the proxy was not programmed")
	}
}
