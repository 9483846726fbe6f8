package ingress

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/contourc/contourc/translate/config"
	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/dag/index"
	"github.com/contourc/contourc/translate/internal/status"
)

// The Ingress processor: networking.k8s.io/v1 Ingress -> virtual hosts and
// routes, with Contour's annotations. Contour only logs problems with an
// Ingress (it writes no status conditions); contourc reports them as notices.

// Processor is the Ingress processor of one translation. translate fills
// in its fields, calls Run, and later Statuses for the status list.
type Processor struct {
	DAG      *dag.DAG         // the DAG the Ingresses' hosts and routes go into
	Index    *index.Index     // the objects, whose Ingresses it reads
	Settings *config.Settings // nil: Contour's defaults
	Notices  *[]status.Notice // where its notices are appended
	// findings are the notices' messages by Ingress, for its entry in
	// the status list (status.go).
	findings map[types.NamespacedName][]string
}

// Run adds the Ingresses' secure virtual hosts, then their routes, to the
// DAG.
func (p *Processor) Run() {
	// Secure virtual hosts first, so that every rule sees the final set.
	for _, ing := range p.Index.Ingresses {
		p.secureVirtualHosts(ing)
	}
	for _, ing := range p.Index.Ingresses {
		for _, rule := range ingressRules(ing.Spec) {
			p.rule(ing, rule)
		}
	}
}

func (p *Processor) notice(ing *networkingv1.Ingress, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	*p.Notices = append(*p.Notices, status.Notice{
		Source: p.Index.Source("Ingress", index.NamespacedName(ing)),
		Kind:   "Ingress",
		Name:   index.NamespacedName(ing).String(),
		Msg:    msg,
	})
	if p.findings == nil {
		p.findings = map[types.NamespacedName][]string{}
	}
	p.findings[index.NamespacedName(ing)] = append(p.findings[index.NamespacedName(ing)], msg)
}

// secureVirtualHosts creates a secure virtual host for each host of each TLS
// entry whose secret is valid and usable from the Ingress's namespace.
func (p *Processor) secureVirtualHosts(ing *networkingv1.Ingress) {
	https := p.DAG.Listener("https")
	if len(ing.Spec.TLS) == 0 {
		return
	}
	if https == nil {
		// Only with a Gateway, whose listeners are the Envoy ones:
		// Contour too puts TLS virtual hosts on its one HTTPS listener.
		for _, tls := range ing.Spec.TLS {
			p.notice(ing, "TLS for %s left out: the Gateway served has no HTTPS listener, or several", strings.Join(tls.Hosts, ","))
		}
		return
	}
	minVersion := dag.TLSVersion(index.ContourAnnotation(ing, "tls-minimum-protocol-version"), "1.2")
	maxVersion := dag.TLSVersion(index.ContourAnnotation(ing, "tls-maximum-protocol-version"), "1.3")
	if maxVersion < minVersion {
		// Contour stops processing TLS for this and every Ingress it has not
		// visited yet (in map order); contourc skips only this Ingress's TLS.
		p.notice(ing, "tls-maximum-protocol-version %s is lower than tls-minimum-protocol-version %s: TLS ignored", maxVersion, minVersion)
		return
	}
	for _, tls := range ing.Spec.TLS {
		name := index.SecretReference(tls.SecretName, index.ContourAnnotation(ing, "tls-cert-namespace"), ing.Namespace)
		secret, err := p.Index.LookupTLSSecret(name, ing.Namespace)
		if err != nil {
			p.notice(ing, "TLS for %s left out: secret %s: %v", strings.Join(tls.Hosts, ","), name, err)
			continue
		}
		for _, host := range tls.Hosts {
			svh := https.EnsureSecureVirtualHost(host)
			svh.Secret = secret
			svh.MinTLSVersion = minVersion
			svh.MaxTLSVersion = maxVersion
		}
	}
}

// ingressRules returns spec.rules with the default backend prepended as a
// host-less rule, so that later rules for the same host and path win. A
// default backend naming a resource is kept, to be skipped and reported as
// any other resource backend.
func ingressRules(spec networkingv1.IngressSpec) []networkingv1.IngressRule {
	if spec.DefaultBackend == nil {
		return spec.Rules
	}
	def := networkingv1.IngressRule{IngressRuleValue: networkingv1.IngressRuleValue{
		HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{
			Backend: *spec.DefaultBackend,
		}}},
	}}
	return append([]networkingv1.IngressRule{def}, spec.Rules...)
}

// errResourceBackend is Contour v1.33.8's log message for a backend that
// names a resource (spec.rules[].http.paths[].backend.resource) instead of
// a Service: Contour skips that path and serves the others.
var errResourceBackend = errors.New("ingress backend does not reference a service, resource backends are not supported")

func (p *Processor) rule(ing *networkingv1.Ingress, rule networkingv1.IngressRule) {
	if rule.HTTP == nil {
		return
	}
	host := rule.Host
	if host == "" {
		host = "*"
	}
	for _, path := range rule.HTTP.Paths {
		r, err := p.route(ing, host, path)
		if err != nil {
			// Contour logs the path as it matches it: "/" when unset.
			p.notice(ing, "path %q left out: %v", cmp.Or(path.Path, "/"), err)
			continue
		}
		if requiresTLS(ing) || httpAllowed(ing) {
			if http := p.DAG.Listener("http"); http != nil {
				http.EnsureVirtualHost(host).AddRoute(r)
			}
		}
		if https := p.DAG.Listener("https"); https != nil && host != "*" {
			if svh, ok := https.SecureVHosts[host]; ok {
				svh.AddRoute(r)
			}
		}
	}
}

// route builds the route for one Ingress path.
func (p *Processor) route(ing *networkingv1.Ingress, host string, path networkingv1.HTTPIngressPath) (*dag.Route, error) {
	backend := path.Backend.Service
	if backend == nil {
		return nil, errResourceBackend
	}
	port := intstr.FromInt32(backend.Port.Number)
	if backend.Port.Name != "" {
		port = intstr.FromString(backend.Port.Name)
	}
	svc, err := p.Index.Service(types.NamespacedName{Namespace: ing.Namespace, Name: backend.Name}, port)
	if err != nil {
		return nil, err
	}
	svc = config.WithDefaultCircuitBreakers(svc, p.Settings)
	cluster := &dag.Cluster{Upstream: svc, Protocol: svc.Protocol, Weight: 1}
	if cluster.ClientCertificate, err = p.Index.ClientCertificate(); err != nil {
		return nil, fmt.Errorf("tls.envoy-client-certificate contains unresolved secret reference: %w", err)
	}
	if s := p.Settings; s != nil && s.ApplyToIngress {
		dynamic := map[string]string{
			"CONTOUR_NAMESPACE":    ing.Namespace,
			"CONTOUR_SERVICE_NAME": backend.Name,
			"CONTOUR_SERVICE_PORT": strconv.Itoa(int(backend.Port.Number)),
		}
		if cluster.RequestHeaders, err = config.WithDefaultHeaders(s.RequestHeaders, nil, true, dynamic); err != nil {
			return nil, err
		}
		if cluster.ResponseHeaders, err = config.WithDefaultHeaders(s.ResponseHeaders, nil, false, dynamic); err != nil {
			return nil, err
		}
	}
	match, err := ingressPathMatch(path)
	if err != nil {
		return nil, err
	}
	value := path.Path
	if value == "" {
		value = "/"
	}
	r := &dag.Route{
		PathMatch:    match,
		Clusters:     []*dag.Cluster{cluster},
		HTTPSUpgrade: requiresTLS(ing),
		Websocket:    index.CommaSet(index.ContourAnnotation(ing, "websocket-routes"))[value],
		Timeout:      ingressTimeout(ing),
		Retry:        ingressRetryPolicy(ing),
		Kind:         "Ingress",
		Namespace:    ing.Namespace,
		Name:         ing.Name,
	}
	if strings.HasPrefix(host, "*.") {
		r.HeaderMatch = append(r.HeaderMatch, dag.WildcardAuthorityMatch(host))
	}
	return r, nil
}

// ingressPathMatch turns an Ingress path and pathType into a path match.
// An unset pathType is ImplementationSpecific, where a path that looks like
// a regex ("^+*[]%") is one.
func ingressPathMatch(path networkingv1.HTTPIngressPath) (dag.PathMatch, error) {
	value := path.Path
	if value == "" {
		value = "/"
	}
	pathType := networkingv1.PathTypeImplementationSpecific
	if path.PathType != nil {
		pathType = *path.PathType
	}
	switch pathType {
	case networkingv1.PathTypePrefix:
		if value == "/" {
			return dag.PathMatch{Kind: dag.PathPrefix, Value: "/"}, nil
		}
		return dag.PathMatch{Kind: dag.PathSegmentPrefix, Value: strings.TrimRight(value, "/")}, nil
	case networkingv1.PathTypeExact:
		return dag.PathMatch{Kind: dag.PathExact, Value: value}, nil
	default:
		if strings.ContainsAny(value, "^+*[]%") {
			if _, err := regexp.Compile(value); err != nil {
				return dag.PathMatch{}, fmt.Errorf("path regex is not valid: %v", err)
			}
			return dag.PathMatch{Kind: dag.PathRegex, Value: value}, nil
		}
		return dag.PathMatch{Kind: dag.PathPrefix, Value: value}, nil
	}
}

// requiresTLS is ingress.kubernetes.io/force-ssl-redirect: "true".
func requiresTLS(ing *networkingv1.Ingress) bool {
	return ing.Annotations["ingress.kubernetes.io/force-ssl-redirect"] == "true"
}

// httpAllowed is false only with kubernetes.io/ingress.allow-http: "false".
func httpAllowed(ing *networkingv1.Ingress) bool {
	return ing.Annotations["kubernetes.io/ingress.allow-http"] != "false"
}

// ingressTimeout reads projectcontour.io/response-timeout (or its legacy
// name request-timeout); a bad value leaves Envoy's default.
func ingressTimeout(ing *networkingv1.Ingress) dag.RouteTimeout {
	value := index.ContourAnnotation(ing, "response-timeout")
	if value == "" {
		value = index.ContourAnnotation(ing, "request-timeout")
	}
	t, err := dag.ParseTimeout(value)
	if err != nil {
		return dag.RouteTimeout{}
	}
	return dag.RouteTimeout{Response: t}
}

// ingressRetryPolicy reads the retry-on, num-retries and per-try-timeout
// annotations; there is no policy without retry-on.
func ingressRetryPolicy(ing *networkingv1.Ingress) *dag.RetryPolicy {
	retryOn := index.ContourAnnotation(ing, "retry-on")
	if retryOn == "" {
		return nil
	}
	rp := &dag.RetryPolicy{RetryOn: retryOn, NumRetries: ingressNumRetries(index.ContourAnnotation(ing, "num-retries"))}
	if t, err := dag.ParseTimeout(index.ContourAnnotation(ing, "per-try-timeout")); err == nil {
		rp.PerTryTimeout = t
	}
	return rp
}

// ingressNumRetries maps num-retries: -1 disables retries, 0, 1, other
// negative and unparsable values mean 1.
func ingressNumRetries(s string) uint32 {
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		n = 0
	}
	switch {
	case n == -1:
		return 0
	case n <= 1:
		return 1
	default:
		return uint32(n)
	}
}
