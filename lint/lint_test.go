package lint

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate"
)

// testNow is the clock of every test: certificates are made around it.
var testNow = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

// lintYAML loads docs, translates them as check does and lints them.
func lintYAML(t *testing.T, docs string, opts Options) []Finding {
	t.Helper()
	return lintPaths(t, []string{"-"}, strings.NewReader(docs), opts)
}

// lintPaths is lintYAML for files and directories (and stdin as "-").
func lintPaths(t *testing.T, paths []string, stdin io.Reader, opts Options) []Finding {
	t.Helper()
	loaded, err := loader.Load(paths, loader.Options{Stdin: stdin})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	res, err := translate.Translate(loaded.Objects, translate.Options{StatusOnly: true})
	if err != nil {
		t.Fatalf("translate: %v", err)
	}
	if opts.Now.IsZero() {
		opts.Now = testNow
	}
	if opts.CertExpiryDays == 0 {
		opts.CertExpiryDays = DefaultCertExpiryDays
	}
	return Run(loaded.Objects, res, opts)
}

// ofRule are the findings of one rule.
func ofRule(fs []Finding, rule string) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Rule == rule {
			out = append(out, f)
		}
	}
	return out
}

const services = `
apiVersion: v1
kind: Service
metadata: {name: s1, namespace: default}
spec: {ports: [{port: 80, name: http}]}
---
apiVersion: v1
kind: Service
metadata: {name: s2, namespace: default}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: ext, namespace: default}
spec: {type: ExternalName, externalName: example.org}
`

// proxy is an HTTPProxy named name for fqdn (none: no virtualhost) with
// the given spec lines after the virtualhost, indented by two spaces.
func proxy(name, fqdn, spec string) string {
	vh := ""
	if fqdn != "" {
		vh = "  virtualhost: {fqdn: " + fqdn + "}\n"
	}
	return "---\napiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata: {name: " + name + ", namespace: default}\nspec:\n" + vh + spec + "\n"
}

type ruleCase struct {
	name string
	docs string
	rule string
	want int      // findings of rule
	has  []string // substrings of the first finding's message
}

func runRuleCases(t *testing.T, cases []ruleCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ofRule(lintYAML(t, c.docs, Options{}), c.rule)
			if len(got) != c.want {
				t.Fatalf("%s: %d finding(s), want %d: %+v", c.rule, len(got), c.want, got)
			}
			for _, s := range c.has {
				if !strings.Contains(got[0].Message, s) {
					t.Errorf("message %q lacks %q", got[0].Message, s)
				}
			}
			for _, f := range got {
				if f.Source.File == "" || f.Source.Line == 0 {
					t.Errorf("finding without file:line: %+v", f)
				}
			}
		})
	}
}

func TestRouteRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "regex prefix before a longer prefix", rule: ruleShadowed, want: 1, has: []string{`"prefix /api/v1"`, `"regex /api/.*"`, "can never match"},
			docs: services + proxy("p", "a.com", `  routes:
  - conditions: [{regex: /api/.*}]
    services: [{name: s1, port: 80}]
  - conditions: [{prefix: /api/v1}]
    services: [{name: s2, port: 80}]`)},
		{name: "a regex catching everything", rule: ruleShadowed, want: 2,
			docs: services + proxy("p", "a.com", `  routes:
  - conditions: [{regex: /.*}]
    services: [{name: s1, port: 80}]
  - conditions: [{prefix: /api}]
    services: [{name: s2, port: 80}]
  - services: [{name: s2, port: 80}]`)},
		{name: "across an include tree", rule: ruleShadowed, want: 1, has: []string{`"prefix /app/v1"`},
			docs: services + proxy("root", "a.com", `  includes:
  - name: child
    conditions: [{prefix: /app}]
  routes:
  - conditions: [{prefix: /app/v1}]
    services: [{name: s2, port: 80}]`) + proxy("child", "", `  routes:
  - conditions: [{regex: /.*}]
    services: [{name: s1, port: 80}]`)},
		{name: "longer prefixes first: nothing shadowed", rule: ruleShadowed, want: 0,
			docs: services + proxy("p", "a.com", `  routes:
  - conditions: [{prefix: /}]
    services: [{name: s1, port: 80}]
  - conditions: [{prefix: /api}]
    services: [{name: s2, port: 80}]
  - conditions: [{exact: /api/v1}]
    services: [{name: s2, port: 80}]
  - conditions: [{prefix: /api}, {header: {name: x-env, present: true}}]
    services: [{name: s1, port: 80}]`)},
		{name: "a regex that is no prefix is not judged", rule: ruleShadowed, want: 0,
			docs: services + proxy("p", "a.com", `  routes:
  - conditions: [{regex: "/api/v[0-9]+"}]
    services: [{name: s1, port: 80}]
  - conditions: [{prefix: /api/v1}]
    services: [{name: s2, port: 80}]`)},
		{name: "a regex prefix with a header covers no route without it", rule: ruleShadowed, want: 0,
			docs: services + proxy("p", "a.com", `  routes:
  - conditions: [{regex: /api/.*}, {header: {name: x-env, exact: canary}}]
    services: [{name: s1, port: 80}]
  - conditions: [{prefix: /api/v1}]
    services: [{name: s2, port: 80}]`)},
		{name: "same conditions in one HTTPProxy", rule: ruleDuplicate, want: 1, has: []string{"spec.routes[0]", "spec.routes[1] of HTTPProxy default/p", "dropped"},
			docs: services + proxy("p", "a.com", `  routes:
  - conditions: [{prefix: /a}]
    services: [{name: s1, port: 80}]
  - conditions: [{prefix: /a}]
    services: [{name: s2, port: 80}]`)},
		{name: "an include's route and the root's", rule: ruleDuplicate, want: 1, has: []string{"HTTPProxy default/root has the same match"},
			docs: services + proxy("root", "a.com", `  includes:
  - name: child
    conditions: [{prefix: /a}]
  routes:
  - conditions: [{prefix: /a}]
    services: [{name: s2, port: 80}]`) + proxy("child", "", `  routes:
  - services: [{name: s1, port: 80}]`)},
		{name: "different headers are no duplicate", rule: ruleDuplicate, want: 0,
			docs: services + proxy("p", "a.com", `  routes:
  - conditions: [{prefix: /a}]
    services: [{name: s1, port: 80}]
  - conditions: [{prefix: /a}, {header: {name: x, exact: "1"}}]
    services: [{name: s2, port: 80}]`)},
	})
}

func TestHostRules(t *testing.T) {
	ingress := func(name, class, host string) string {
		c := ""
		if class != "" {
			c = "  ingressClassName: " + class + "\n"
		}
		return "---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: " + name + ", namespace: default}\nspec:\n" + c +
			"  rules:\n  - host: " + host + "\n    http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: s1, port: {number: 80}}}}]}\n"
	}
	route := "  routes:\n  - services: [{name: s1, port: 80}]"
	runRuleCases(t, []ruleCase{
		{name: "two HTTPProxies", rule: ruleFQDNConflict, want: 2, has: []string{"FQDN a.com is also claimed by HTTPProxy default/q", "not served at all"},
			docs: services + proxy("p", "a.com", route) + proxy("q", "a.com", route)},
		{name: "an HTTPProxy and an Ingress", rule: ruleFQDNConflict, want: 2, has: []string{"also claimed by Ingress default/i", "merged"},
			docs: services + proxy("p", "a.com", route) + ingress("i", "", "a.com")},
		{name: "two Ingresses share a host", rule: ruleFQDNConflict, want: 0,
			docs: services + ingress("i", "", "a.com") + ingress("j", "", "a.com")},
		{name: "an Ingress of another class", rule: ruleFQDNConflict, want: 0,
			docs: services + proxy("p", "a.com", route) + ingress("i", "nginx", "a.com")},
		{name: "different hosts", rule: ruleFQDNConflict, want: 0,
			docs: services + proxy("p", "a.com", route) + proxy("q", "b.com", route)},
	})
}

func TestServiceRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "HTTPProxy to a port the Service lacks", rule: rulePortMissing, want: 1, has: []string{"Service default/s1 has no port 8080", "80 (http)"},
			docs: services + proxy("p", "a.com", "  routes:\n  - services: [{name: s1, port: 8080}]")},
		{name: "Ingress to a port name the Service lacks", rule: rulePortMissing, want: 1, has: []string{"no port grpc"},
			docs: services + "---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: i, namespace: default}\nspec:\n  defaultBackend: {service: {name: s1, port: {name: grpc}}}\n"},
		{name: "ports that exist, by number and name", rule: rulePortMissing, want: 0,
			docs: services + proxy("p", "a.com", "  routes:\n  - services: [{name: s1, port: 80}, {name: ext, port: 443}]") +
				"---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: i, namespace: default}\nspec:\n  defaultBackend: {service: {name: s1, port: {name: http}}}\n"},
		{name: "mirror to the Service routed to", rule: ruleMirrorSelf, want: 1, has: []string{"mirrors requests to Service s1 port 80"},
			docs: services + proxy("p", "a.com", "  routes:\n  - services: [{name: s1, port: 80}, {name: s1, port: 80, mirror: true}]")},
		{name: "mirror to another Service", rule: ruleMirrorSelf, want: 0,
			docs: services + proxy("p", "a.com", "  routes:\n  - services: [{name: s1, port: 80}, {name: s2, port: 80, mirror: true}]")},
		{name: "HTTPRoute weights all zero", rule: ruleZeroWeights, want: 1, has: []string{"spec.rules[0].backendRefs", "500"},
			docs: services + gatewayDocs + httpRoute("r", "http", "[{name: s1, port: 80, weight: 0}, {name: s2, port: 80, weight: 0}]")},
		{name: "HTTPRoute with one weight set", rule: ruleZeroWeights, want: 0,
			docs: services + gatewayDocs + httpRoute("r", "http", "[{name: s1, port: 80, weight: 0}, {name: s2, port: 80}]")},
		{name: "HTTPRoute to a missing port", rule: rulePortMissing, want: 1,
			docs: services + gatewayDocs + httpRoute("r", "http", "[{name: s1, port: 81}]")},
	})
}

const gatewayDocs = `
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: contour}
spec: {controllerName: projectcontour.io/gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: default}
spec:
  gatewayClassName: contour
  listeners:
  - {name: http, protocol: HTTP, port: 80}
  - {name: admin, protocol: HTTP, port: 81, hostname: admin.a.com}
`

func httpRoute(name, section, backends string) string {
	return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: " + name + ", namespace: default}\nspec:\n" +
		"  parentRefs: [{name: gw, sectionName: " + section + "}]\n  rules:\n  - backendRefs: " + backends + "\n"
}

func TestGatewayRules(t *testing.T) {
	other := `
---
apiVersion: v1
kind: Service
metadata: {name: s3, namespace: other}
spec: {ports: [{port: 80}]}
`
	grant := `
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: {name: g, namespace: other}
spec:
  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: default}]
  to: [{group: "", kind: Service}]
`
	runRuleCases(t, []ruleCase{
		{name: "a route naming no listener", rule: ruleRouteUnattached, want: 1, has: []string{"parentRef default/gw:nope attaches to no listener"},
			docs: services + gatewayDocs + httpRoute("r", "http", "[{name: s1, port: 80}]") + httpRoute("lost", "nope", "[{name: s1, port: 80}]")},
		{name: "attached routes", rule: ruleRouteUnattached, want: 0,
			docs: services + gatewayDocs + httpRoute("r", "http", "[{name: s1, port: 80}]") + httpRoute("q", "admin", "[{name: s1, port: 80}]")},
		{name: "a listener without a route", rule: ruleListenerUnused, want: 1, has: []string{"listener admin has no route"},
			docs: services + gatewayDocs + httpRoute("r", "http", "[{name: s1, port: 80}]")},
		{name: "a Gateway whose routes are elsewhere", rule: ruleListenerUnused, want: 0,
			docs: services + gatewayDocs},
		{name: "a backendRef to another namespace without a grant", rule: ruleRefNotPermitted, want: 1, has: []string{"ReferenceGrant"},
			docs: services + other + gatewayDocs + httpRoute("r", "http", "[{name: s3, namespace: other, port: 80}]")},
		{name: "with the grant", rule: ruleRefNotPermitted, want: 0,
			docs: services + other + grant + gatewayDocs + httpRoute("r", "http", "[{name: s3, namespace: other, port: 80}]")},
	})
}

func TestAnnotationRules(t *testing.T) {
	ingress := func(class string, annotations string) string {
		c := ""
		if class != "" {
			c = "  ingressClassName: " + class + "\n"
		}
		return "---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: i\n  namespace: default\n  annotations: " + annotations + "\nspec:\n" + c +
			"  defaultBackend: {service: {name: s1, port: {number: 80}}}\n"
	}
	runRuleCases(t, []ruleCase{
		{name: "rewrite-target", rule: ruleForeignAnnotation, want: 1, has: []string{"nginx.ingress.kubernetes.io/rewrite-target", "pathRewritePolicy"},
			docs: services + ingress("", "{nginx.ingress.kubernetes.io/rewrite-target: /}")},
		{name: "each one, with or without an equivalent", rule: ruleForeignAnnotation, want: 4,
			docs: services + ingress("", `{nginx.ingress.kubernetes.io/ssl-redirect: "true", nginx.ingress.kubernetes.io/proxy-body-size: 8m, traefik.ingress.kubernetes.io/router.tls: "true", haproxy.org/timeout-server: 5s}`)},
		{name: "no equivalent", rule: ruleForeignAnnotation, want: 1, has: []string{"no equivalent"},
			docs: services + ingress("", "{nginx.ingress.kubernetes.io/proxy-body-size: 8m}")},
		{name: "Contour's own annotations", rule: ruleForeignAnnotation, want: 0,
			docs: services + ingress("", `{ingress.kubernetes.io/force-ssl-redirect: "true", projectcontour.io/response-timeout: 5s}`)},
		{name: "an Ingress of another controller", rule: ruleForeignAnnotation, want: 0,
			docs: services + ingress("nginx", "{nginx.ingress.kubernetes.io/rewrite-target: /}")},
	})
}

func TestSuppression(t *testing.T) {
	docs := func(annotation string) string {
		return services + "---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: i\n  namespace: default\n  annotations:\n" +
			"    nginx.ingress.kubernetes.io/rewrite-target: /\n" + annotation +
			"spec:\n  defaultBackend: {service: {name: s1, port: {number: 81}}}\n"
	}
	for _, c := range []struct {
		name       string
		annotation string
		disable    []string
		want       []string // rules reported
	}{
		{name: "nothing suppressed", want: []string{rulePortMissing, ruleForeignAnnotation}},
		{name: "by annotation", annotation: "    contourc.dev/lint-disable: CTC1401\n", want: []string{rulePortMissing}},
		{name: "by annotation, two IDs", annotation: "    contourc.dev/lint-disable: \"CTC1401, CTC1301\"\n"},
		{name: "an annotation naming another rule", annotation: "    contourc.dev/lint-disable: CTC1001\n", want: []string{rulePortMissing, ruleForeignAnnotation}},
		{name: "by option", disable: []string{rulePortMissing}, want: []string{ruleForeignAnnotation}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, f := range lintYAML(t, docs(c.annotation), Options{Disable: c.disable}) {
				got = append(got, f.Rule)
			}
			if strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Errorf("rules %v, want %v", got, c.want)
			}
		})
	}
}

func TestRulesAreDocumented(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules() {
		if seen[r.ID] || seen[r.Name] {
			t.Errorf("rule %s %s: ID or name twice", r.ID, r.Name)
		}
		seen[r.ID], seen[r.Name] = true, true
		if len(r.ID) != 7 || !strings.HasPrefix(r.ID, "CTC") || r.Summary == "" {
			t.Errorf("rule %+v: want an ID CTCnnnn and a summary", r)
		}
	}
}

func TestDuplicateRoutesOfADiamond(t *testing.T) {
	// A child included twice (under the same conditions through two
	// parents) adds the same route twice: Contour replaces it with
	// itself, which is no mistake.
	docs := services + proxy("root", "a.com", `  includes:
  - name: left
    conditions: [{prefix: /x}]
  - name: right`) + proxy("left", "", `  includes:
  - name: leaf`) + proxy("right", "", `  includes:
  - name: leaf
    conditions: [{prefix: /x}]`) + proxy("leaf", "", `  routes:
  - services: [{name: s1, port: 80}]`)
	if got := ofRule(lintYAML(t, docs, Options{}), ruleDuplicate); len(got) != 0 {
		t.Errorf("%+v", got)
	}
}
