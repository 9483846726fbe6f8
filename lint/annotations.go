package lint

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/contourc/contourc/loader"
)

// CTC1401: annotations of other ingress controllers on an Ingress Contour
// serves. Contour reads none of them, so a repository migrated from
// ingress-nginx (say) loses its rewrites, redirects and allow-lists
// without a word. One finding per annotation, with Contour's way of doing
// the same where it has one.

// foreignPrefixes are the annotation prefixes of other controllers.
var foreignPrefixes = []string{
	"nginx.ingress.kubernetes.io/", "nginx.org/", "traefik.ingress.kubernetes.io/", "traefik.",
	"haproxy.org/", "haproxy.router.openshift.io/", "haproxy.", "alb.ingress.kubernetes.io/",
}

// contourEquivalents maps an annotation's name (after its controller's
// prefix) to what does the same in Contour. Made on first use, not at
// start-up.
var contourEquivalents = sync.OnceValue(func() map[string]string {
	const (
		rewrite   = "an HTTPProxy route's pathRewritePolicy"
		redirect  = "the ingress.kubernetes.io/force-ssl-redirect annotation"
		timeout   = "the projectcontour.io/response-timeout annotation"
		allowList = "an HTTPProxy's ipAllowPolicy"
		cors      = "an HTTPProxy's virtualhost.corsPolicy"
		sticky    = "an HTTPProxy route's loadBalancerPolicy (strategy: Cookie)"
		auth      = "an HTTPProxy's virtualhost.authorization (an ExtensionService)"
		rateLimit = "an HTTPProxy's rateLimitPolicy"
		protocol  = "the Service annotation projectcontour.io/upstream-protocol.h2, .h2c or .tls"
	)
	return map[string]string{
		"rewrite-target": rewrite, "path-rewrite": rewrite, "router.middlewares": "an HTTPProxy's policies (pathRewritePolicy, headers policies, ipAllowPolicy)",
		"ssl-redirect": redirect, "force-ssl-redirect": redirect, "router.entrypoints": "Contour's listeners: an Ingress with TLS is served on HTTPS, and on HTTP unless redirected",
		"proxy-read-timeout": timeout, "timeout-server": timeout,
		"whitelist-source-range": allowList, "allowlist-source-range": allowList, "whitelist": allowList, "allow-list": allowList, "src-ip-allow": allowList,
		"enable-cors": cors, "cors-enable": cors,
		"affinity": sticky, "session-cookie-name": sticky, "cookie-persistence": sticky,
		"auth-url": auth, "auth-type": auth,
		"limit-rps": rateLimit, "limit-rpm": rateLimit, "limit-connections": rateLimit, "rate-limit-requests": rateLimit,
		"backend-protocol": protocol, "server-ssl": protocol,
		"proxy-next-upstream":       "the projectcontour.io/retry-on annotation",
		"proxy-next-upstream-tries": "the projectcontour.io/num-retries annotation",
		"websocket-services":        "the projectcontour.io/websocket-routes annotation",
		"ssl-passthrough":           "an HTTPProxy's virtualhost.tls.passthrough",
		"permanent-redirect":        "an HTTPProxy route's requestRedirectPolicy",
		"temporal-redirect":         "an HTTPProxy route's requestRedirectPolicy",
		"upstream-vhost":            "an HTTPProxy route's requestHeadersPolicy (set Host)",
		"canary":                    "an HTTPProxy route's weighted services",
		"load-balance":              "an HTTPProxy route's loadBalancerPolicy",
	}
})

func annotationRules(in *input) []Finding {
	var out []Finding
	for _, o := range in.index.ofKind("Ingress") {
		if !in.served(o) {
			continue
		}
		annotations := o.Obj.GetAnnotations()
		keys := make([]string, 0, len(annotations))
		for k := range annotations {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if f, ok := foreignAnnotation(o, k); ok {
				out = append(out, f)
			}
		}
	}
	return out
}

func foreignAnnotation(o *loader.Object, key string) (Finding, bool) {
	for _, prefix := range foreignPrefixes {
		name, ok := strings.CutPrefix(key, prefix)
		if !ok {
			continue
		}
		msg := fmt.Sprintf("annotation %s is another ingress controller's: Contour ignores it", key)
		if eq, ok := contourEquivalents()[name]; ok {
			msg += "; in Contour, use " + eq
		} else {
			msg += "; Contour has no equivalent annotation"
		}
		return finding(ruleForeignAnnotation, o, msg), true
	}
	return Finding{}, false
}
