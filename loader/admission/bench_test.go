package admission

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
)

// BenchmarkAdmit admits 1,000 HTTPRoutes and 1,000 HTTPProxies of the
// shape shared/tools/scalegen writes, reporting each admission step's
// time per object (after the first iteration, which compiles).
func BenchmarkAdmit(b *testing.B) {
	for _, kind := range []string{"HTTPRoute", "HTTPProxy"} {
		b.Run(kind, func(b *testing.B) {
			objs := make([]map[string]any, 1000)
			for i := range objs {
				objs[i] = parseObject(b, scaleObject(kind, i))
			}
			var phases [4]time.Duration
			n := 0
			for b.Loop() {
				b.StopTimer()
				fresh := make([]map[string]any, len(objs))
				for i, o := range objs {
					fresh[i] = runtime.DeepCopyJSON(o)
				}
				b.StartTimer()
				for _, obj := range fresh {
					admitTimed(obj, &phases)
				}
				n += len(fresh)
			}
			for i, name := range []string{"decode", "default", "schema", "cel"} {
				b.ReportMetric(float64(phases[i].Nanoseconds())/float64(n), name+"-ns/obj")
			}
		})
	}
}

// admitTimed is Admit, step by step, adding each step's time to phases.
func admitTimed(obj map[string]any, phases *[4]time.Duration) {
	v, _ := lookup(gvkOf(obj))
	root, _ := v.compiled()
	t0 := time.Now()
	decode(obj, v)
	prune(obj, v)
	t1 := time.Now()
	applyDefaults(obj, v)
	t2 := time.Now()
	validateSchema(obj, root, v)
	t3 := time.Now()
	validateCEL(obj, root)
	t4 := time.Now()
	phases[0] += t1.Sub(t0)
	phases[1] += t2.Sub(t1)
	phases[2] += t3.Sub(t2)
	phases[3] += t4.Sub(t3)
}

// scaleObject is the i-th object of a scalegen corpus of kind.
func scaleObject(kind string, i int) string {
	if kind == "HTTPProxy" {
		return fmt.Sprintf(`
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: app-%05[1]d, namespace: team-%03[2]d}
spec:
  virtualhost: {fqdn: app-%05[1]d.example.com, tls: {secretName: app-%05[1]d-tls}}
  routes:
  - conditions: [{prefix: /}]
    services: [{name: app-%05[1]d, port: 80}]
  - conditions: [{prefix: /api}]
    services: [{name: app-%05[1]d, port: 80}]
    timeoutPolicy: {response: 30s, idle: 5m}
    retryPolicy: {count: 3, perTryTimeout: 5s}
  - conditions: [{prefix: /static}]
    services: [{name: app-%05[1]d, port: 80}]
    responseHeadersPolicy: {set: [{name: Cache-Control, value: max-age=3600}]}
  - conditions: [{prefix: /v1/users}, {header: {name: x-canary, exact: "true"}}]
    services: [{name: app-%05[1]d, port: 80}]
    requestHeadersPolicy: {set: [{name: x-route, value: canary}]}
  - conditions: [{prefix: /legacy}]
    services: [{name: app-%05[1]d, port: 80}]
    pathRewritePolicy: {replacePrefix: [{prefix: /legacy, replacement: /}]}
`, i, i%50)
	}
	return fmt.Sprintf(`
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: app-%05[1]d, namespace: team-%03[2]d}
spec:
  parentRefs: [{name: edge, namespace: scale}]
  hostnames: [app-%05[1]d.example.com]
  rules:
  - matches: [{path: {type: PathPrefix, value: /}}]
    backendRefs: [{name: app-%05[1]d, port: 80}]
  - matches: [{path: {type: PathPrefix, value: /api}}]
    timeouts: {request: 30s}
    backendRefs: [{name: app-%05[1]d, port: 80}]
  - matches: [{path: {type: PathPrefix, value: /static}}]
    filters: [{type: ResponseHeaderModifier, responseHeaderModifier: {set: [{name: Cache-Control, value: max-age=3600}]}}]
    backendRefs: [{name: app-%05[1]d, port: 80}]
  - matches: [{path: {type: PathPrefix, value: /v1/users}, headers: [{name: x-canary, value: "true"}]}]
    filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: x-route, value: canary}]}}]
    backendRefs: [{name: app-%05[1]d, port: 80}]
  - matches: [{path: {type: PathPrefix, value: /legacy}}]
    filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: /}}}]
    backendRefs: [{name: app-%05[1]d, port: 80}]
`, i, i%50)
}
