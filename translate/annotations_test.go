package translate

// Ingress route annotations (reference map A.1): websocket-routes,
// response-timeout / request-timeout, retry-on / num-retries /
// per-try-timeout. Each case goes through Translate and looks at the
// RouteAction of the produced route.

import (
	"testing"
	"time"

	"github.com/contourc/contourc/translate/internal/testpki"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
	networkingv1 "k8s.io/api/networking/v1"
)

// annotatedRoutes translates one Ingress with the annotations kv and the
// given paths on host "" and returns the routes of the * virtual host.
func annotatedRoutes(t *testing.T, kv []string, paths ...networkingv1.HTTPIngressPath) []*routev3.Route {
	t.Helper()
	if len(paths) == 0 {
		paths = []networkingv1.HTTPIngressPath{ingPath(ptPrefix, "/", "kuard", 80)}
	}
	ing := mkIngress("default", "annotated", ingAnnotations(kv...), ingRule("", paths...))
	res := translateIngressT(t, Options{}, withKuard(ing)...)
	return mustRoutes(t, res, "ingress_http", "*")
}

func TestIngressWebsocketRoutes(t *testing.T) {
	websocket := []*routev3.RouteAction_UpgradeConfig{{UpgradeType: "websocket"}}
	tests := []struct {
		name       string
		annotation string
		path       networkingv1.HTTPIngressPath
		match      *routev3.RouteMatch
		want       bool
	}{
		{"listed prefix", "/ws", ingPath(ptPrefix, "/ws", "kuard", 80), wantSegmentPrefix("/ws"), true},
		{"listed among others with spaces", "/a, /ws ,/b", ingPath(ptPrefix, "/ws", "kuard", 80), wantSegmentPrefix("/ws"), true},
		// The annotation is compared with the Ingress path before Prefix
		// trimming: "/ws/" matches "/ws/" only.
		{"trailing slash listed", "/ws/", ingPath(ptPrefix, "/ws/", "kuard", 80), wantSegmentPrefix("/ws"), true},
		{"trimmed form does not match", "/ws", ingPath(ptPrefix, "/ws/", "kuard", 80), wantSegmentPrefix("/ws"), false},
		{"exact path", "/socket", ingPath(ptExact, "/socket", "kuard", 80), wantExact("/socket"), true},
		{"regex path by its text", "/ws/.*", ingPath(ptUnset, "/ws/.*", "kuard", 80), wantRegex("^/ws/.*"), true},
		{"empty path is /", "/", ingPath(ptUnset, "", "kuard", 80), wantPrefix("/"), true},
		{"not listed", "/other", ingPath(ptPrefix, "/ws", "kuard", 80), wantSegmentPrefix("/ws"), false},
		{"prefix of a listed path", "/wsx", ingPath(ptPrefix, "/ws", "kuard", 80), wantSegmentPrefix("/ws"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			other := ingPath(ptExact, "/unrelated", "kuard", 80)
			routes := annotatedRoutes(t, []string{"projectcontour.io/websocket-routes", tt.annotation}, tt.path, other)
			r := mustRouteWithMatch(t, routes, tt.match)
			got := r.GetRoute().GetUpgradeConfigs()
			if tt.want && !upgradeConfigsEqual(got, websocket) {
				t.Errorf("upgrade_configs = %v, want websocket", got)
			}
			if !tt.want && len(got) != 0 {
				t.Errorf("upgrade_configs = %v, want none", got)
			}
			if u := mustRouteWithMatch(t, routes, wantExact("/unrelated")).GetRoute().GetUpgradeConfigs(); len(u) != 0 {
				t.Errorf("unlisted path got upgrade_configs %v", u)
			}
		})
	}
}

func upgradeConfigsEqual(a, b []*routev3.RouteAction_UpgradeConfig) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !proto.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

func TestIngressTimeoutAnnotations(t *testing.T) {
	const (
		response = "projectcontour.io/response-timeout"
		request  = "projectcontour.io/request-timeout"
	)
	tests := []struct {
		name string
		kv   []string
		want *durationpb.Duration // nil: no timeout field
	}{
		{"unset", nil, nil},
		{"response-timeout", []string{response, "1m30s"}, durationpb.New(90 * time.Second)},
		{"request-timeout alias", []string{request, "10s"}, durationpb.New(10 * time.Second)},
		{"response-timeout wins over the alias", []string{response, "5s", request, "10s"}, durationpb.New(5 * time.Second)},
		{"infinity", []string{response, "infinity"}, durationpb.New(0)},
		{"infinite", []string{request, "infinite"}, durationpb.New(0)},
		{"0s is the default", []string{response, "0s"}, nil},
		{"bad value is omitted", []string{response, "forever"}, nil},
		{"number without unit is bad", []string{response, "30"}, nil},
		// A present but bad response-timeout does not fall back to the alias.
		{"bad response-timeout hides the alias", []string{response, "nope", request, "10s"}, nil},
		{"milliseconds", []string{response, "250ms"}, durationpb.New(250 * time.Millisecond)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := annotatedRoutes(t, tt.kv)[0]
			if got := r.GetRoute().GetTimeout(); !proto.Equal(got, tt.want) {
				t.Errorf("timeout = %v, want %v", got, tt.want)
			}
			if got := r.GetRoute().GetIdleTimeout(); got != nil {
				t.Errorf("idle_timeout = %v, want none", got)
			}
		})
	}
}

func TestIngressRetryAnnotations(t *testing.T) {
	const (
		retryOn    = "projectcontour.io/retry-on"
		numRetries = "projectcontour.io/num-retries"
		perTry     = "projectcontour.io/per-try-timeout"
	)
	policy := func(on string, n uint32, perTry *durationpb.Duration) *routev3.RetryPolicy {
		return &routev3.RetryPolicy{RetryOn: on, NumRetries: wrapperspb.UInt32(n), PerTryTimeout: perTry}
	}
	tests := []struct {
		name string
		kv   []string
		want *routev3.RetryPolicy
	}{
		{"no annotations", nil, nil},
		{"num-retries without retry-on", []string{numRetries, "3", perTry, "1s"}, nil},
		{"retry-on alone: one retry", []string{retryOn, "5xx"}, policy("5xx", 1, nil)},
		{"retry-on verbatim", []string{retryOn, "gateway-error,reset, connect-failure"}, policy("gateway-error,reset, connect-failure", 1, nil)},
		{"num-retries -1 disables", []string{retryOn, "5xx", numRetries, "-1"}, policy("5xx", 0, nil)},
		{"num-retries 0 is 1", []string{retryOn, "5xx", numRetries, "0"}, policy("5xx", 1, nil)},
		{"num-retries 1", []string{retryOn, "5xx", numRetries, "1"}, policy("5xx", 1, nil)},
		{"num-retries 7", []string{retryOn, "5xx", numRetries, "7"}, policy("5xx", 7, nil)},
		{"num-retries other negative is 1", []string{retryOn, "5xx", numRetries, "-5"}, policy("5xx", 1, nil)},
		{"num-retries bad is 1", []string{retryOn, "5xx", numRetries, "many"}, policy("5xx", 1, nil)},
		{"num-retries beyond int32 is 1", []string{retryOn, "5xx", numRetries, "4294967296"}, policy("5xx", 1, nil)},
		{"per-try-timeout", []string{retryOn, "5xx", numRetries, "3", perTry, "150ms"}, policy("5xx", 3, durationpb.New(150*time.Millisecond))},
		{"per-try-timeout infinity", []string{retryOn, "5xx", perTry, "infinity"}, policy("5xx", 1, durationpb.New(0))},
		{"per-try-timeout bad is omitted", []string{retryOn, "5xx", perTry, "soon"}, policy("5xx", 1, nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := annotatedRoutes(t, tt.kv)[0]
			if got := r.GetRoute().GetRetryPolicy(); !proto.Equal(got, tt.want) {
				t.Errorf("retry_policy = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestIngressAnnotationsApplyToEveryPath: route annotations are per Ingress,
// so every path and every host of it gets them, on HTTP and HTTPS alike.
func TestIngressAnnotationsApplyToEveryPath(t *testing.T) {
	ing := mkIngress("default", "i",
		ingAnnotations("projectcontour.io/response-timeout", "3s", "projectcontour.io/retry-on", "5xx"),
		ingTLS("tls", "foo.com"),
		ingRule("foo.com", ingPath(ptPrefix, "/a", "kuard", 80), ingPath(ptExact, "/b", "kuard", 80)),
		ingRule("bar.com", ingPath(ptPrefix, "/", "kuard", 80)),
	)
	res := translateIngressT(t, Options{}, withKuard(ing, testpki.TLSSecret(t, "default", "tls"))...)
	check := func(rc, vh string) {
		for _, r := range mustRoutes(t, res, rc, vh) {
			if !proto.Equal(r.GetRoute().GetTimeout(), durationpb.New(3*time.Second)) || r.GetRoute().GetRetryPolicy().GetRetryOn() != "5xx" {
				t.Errorf("%s %s route %v lacks the annotations' timeout/retry policy", rc, vh, r.Match)
			}
		}
	}
	check("ingress_http", "foo.com")
	check("ingress_http", "bar.com")
	check("https/foo.com", "foo.com")
}

// TestIngressNegativeTimeouts: Envoy rejects a negative Duration anywhere in
// a RouteConfiguration ("Expected positive duration"), which would make it
// NACK ingress_http as a whole. Annotations are not validated by a CRD
// schema, so "-1s" reaches the translation.
func TestIngressNegativeTimeouts(t *testing.T) {
	for _, kv := range [][]string{
		{"projectcontour.io/response-timeout", "-1s"},
		{"projectcontour.io/request-timeout", "-30s"},
		{"projectcontour.io/retry-on", "5xx", "projectcontour.io/per-try-timeout", "-100ms"},
	} {
		t.Run(kv[len(kv)-2], func(t *testing.T) {
			ing := mkIngress("default", "neg", ingAnnotations(kv...), ingRule("", ingPath(ptPrefix, "/", "kuard", 80)))
			res, err := Translate(mkObjects(t, withKuard(ing)...), Options{})
			if err != nil {
				t.Fatal(err)
			}
			r := mustRoutes(t, res, "ingress_http", "*")[0]
			if d := findNegativeDuration(r.ProtoReflect()); d != "" {
				t.Errorf("a negative %s annotation becomes a negative Duration (%s) that Envoy rejects, taking the whole route configuration down", kv[len(kv)-2], d)
			}
			validateAllResources(t, res.Resources)
		})
	}
}
