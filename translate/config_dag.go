package translate

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	contourv1alpha1 "github.com/projectcontour/contour/apis/projectcontour/v1alpha1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/config"
	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/internal/httpheader"
	"github.com/contourc/contourc/translate/internal/status"
)

// How the configuration changes what the DAG processors do: default header
// policies, the default global rate limit policy, the global authorization
// server and the Envoy client certificate (which objects are seen at all
// is translate/config's filter.go).

// withDefaultGlobalRateLimit attaches the rate limit service's default
// global policy to a virtual host that has no global policy of its own and
// does not opt out.
func withDefaultGlobalRateLimit(rl *dag.RateLimitPolicy, spec *contourv1.RateLimitPolicy, s *config.Settings) (*dag.RateLimitPolicy, error) {
	if s == nil || s.RateLimitService == nil || s.RateLimitService.DefaultGlobalRateLimitPolicy == nil {
		return rl, nil
	}
	if spec != nil && spec.Global != nil && (spec.Global.Disabled || len(spec.Global.Descriptors) > 0) {
		return rl, nil // opted out, or its own policy
	}
	def := s.RateLimitService.DefaultGlobalRateLimitPolicy
	if def.Disabled {
		return rl, nil
	}
	global, err := globalRateLimits(def.Descriptors)
	if err != nil {
		return nil, err
	}
	if rl == nil {
		rl = &dag.RateLimitPolicy{}
	}
	rl.Global = global
	return rl, nil
}

// checkGlobalAuthorization reports, as Contour does on the plain virtual
// host, a global authorization server whose ExtensionService is not valid;
// the virtual host is still served.
func (p *httpProxyProcessor) checkGlobalAuthorization(st *status.Proxy, proxy *contourv1.HTTPProxy) {
	g := p.globalAuth()
	if g == nil {
		return
	}
	if a := proxy.Spec.VirtualHost.Authorization; a != nil && a.AuthPolicy != nil && a.AuthPolicy.Disabled {
		return
	}
	name := types.NamespacedName{Namespace: g.ExtensionServiceRef.Namespace, Name: g.ExtensionServiceRef.Name}
	if name.Namespace == "" {
		name.Namespace = proxy.Namespace
	}
	if p.dag.Extensions[name] == nil {
		st.AddError("AuthError", "ExtensionServiceNotFound", "Spec.Virtualhost.Authorization.ServiceRef extension service %q not found", name)
	}
}

// withDefaultHeaders merges the configuration's default header policy into
// a service's: the service's own values win, a default Host becomes the
// host rewrite unless the service rewrites it.
func withDefaultHeaders(def, user *dag.HeadersPolicy, allowHost bool, dynamic map[string]string) (*dag.HeadersPolicy, error) {
	if def == nil {
		return user, nil
	}
	out := &dag.HeadersPolicy{Set: map[string]string{}}
	if user != nil {
		*out = *user
		out.Set = map[string]string{}
		for k, v := range user.Set {
			out.Set[k] = v
		}
		out.Remove = slices.Clone(user.Remove)
	}
	keys := make([]string, 0, len(def.Set))
	for k := range def.Set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := def.Set[k]
		key := http.CanonicalHeaderKey(k)
		if key == "Host" {
			if !allowHost {
				return nil, fmt.Errorf("rewriting %q header is not supported", key)
			}
			if out.HostRewrite == "" {
				if hostRewriteHeaderValue().MatchString(v) {
					return nil, fmt.Errorf("rewriting %q host header with dynamic value is not supported on service", key)
				}
				out.HostRewrite = v
			}
			continue
		}
		if msgs := httpheader.NameProblems(key); len(msgs) != 0 {
			return nil, fmt.Errorf("invalid set header %q: %v", key, msgs)
		}
		if _, exists := out.Set[key]; !exists {
			out.Set[key] = httpheader.EscapeValue(v, dynamic)
		}
	}
	for _, entry := range def.Remove {
		key := http.CanonicalHeaderKey(entry)
		if msgs := httpheader.NameProblems(key); len(msgs) != 0 {
			return nil, fmt.Errorf("invalid set header %q: %v", key, msgs)
		}
		if !slices.Contains(out.Remove, key) {
			out.Remove = append(out.Remove, key)
		}
	}
	if len(out.Set) == 0 {
		out.Set = nil
	}
	return out, nil
}

// resolveExtensionRefs finds the ExtensionServices the configuration's rate
// limit service, tracing and global authorization name. Contour reads them
// at start-up and refuses to start without them.
func resolveExtensionRefs(objs []loader.Object, s *config.Settings) error {
	find := func(key string, name types.NamespacedName) (*config.ExtensionRef, error) {
		for _, o := range objs {
			ext, ok := o.Obj.(*contourv1alpha1.ExtensionService)
			if !ok || ext.Namespace != name.Namespace || ext.Name != name.Name {
				continue
			}
			ref := &config.ExtensionRef{ClusterName: "extension/" + name.Namespace + "/" + name.Name}
			if tp := ext.Spec.TimeoutPolicy; tp != nil {
				t, err := parseConfigTimeoutOrEmpty(tp.Response)
				if err != nil {
					return nil, fmt.Errorf("%s: error parsing extension service %s response timeout: %v", key, name, err)
				}
				ref.Timeout = t
			}
			if uv := ext.Spec.UpstreamValidation; uv != nil {
				ref.SNI = uv.SubjectName
			}
			return ref, nil
		}
		return nil, fmt.Errorf("%s: error getting extension service %s: ExtensionService not found in the input (Contour does not start without it)", key, name)
	}
	var errs []error
	var err error
	if r := s.RateLimitService; r != nil {
		if s.RateLimitExtension, err = find("rateLimitService.extensionService", r.ExtensionService); err != nil {
			errs = append(errs, err)
		}
	}
	if t := s.Tracing; t != nil {
		if s.TracingExtension, err = find("tracing.extensionService", t.ExtensionService); err != nil {
			errs = append(errs, err)
		}
	}
	if a := s.GlobalExtAuth; a != nil {
		name := types.NamespacedName{Namespace: a.ExtensionServiceRef.Namespace, Name: a.ExtensionServiceRef.Name}
		ref, err := find("globalExtAuth.extensionService", name)
		if err != nil {
			errs = append(errs, err)
		} else {
			timeout, err := dag.ParseTimeout(a.ResponseTimeout)
			if err != nil {
				errs = append(errs, fmt.Errorf("globalExtAuth.responseTimeout: %w", err))
			}
			if !timeout.Set {
				timeout = ref.Timeout
			}
			g := &dag.ExternalAuthorization{
				Extension:       &dag.ExtensionCluster{Namespace: name.Namespace, Name: name.Name, SNI: ref.SNI},
				FailOpen:        a.FailOpen,
				ResponseTimeout: timeout,
			}
			// Its problems were reported with the settings
			// (validateGlobalAuth), which then are not used.
			_ = config.ApplyAuthorizationServiceType(g, a.AuthPolicy, s.GlobalExtAuthExtensions)
			if b := a.WithRequestBody; b != nil {
				g.WithRequestBody = &dag.RequestBodyBuffer{MaxRequestBytes: cmp.Or(b.MaxRequestBytes, defaultMaxRequestBytes), AllowPartialMessage: b.AllowPartialMessage, PackAsBytes: b.PackAsBytes}
			}
			s.ResolvedGlobalExtAuth = g
		}
	}
	return errors.Join(errs...)
}

// parseConfigTimeoutOrEmpty is parseConfigTimeout with "" as the default.
func parseConfigTimeoutOrEmpty(v string) (dag.Timeout, error) {
	if v == "" {
		return dag.Timeout{}, nil
	}
	return config.ParseTimeout(v)
}

// withDefaultCircuitBreakers fills a Service's unset thresholds from the
// configuration's cluster.circuit-breakers (set; nil: Contour's defaults).
func withDefaultCircuitBreakers(s *dag.Service, set *config.Settings) *dag.Service {
	if s == nil || set == nil || set.CircuitBreakers == nil {
		return s
	}
	d := set.CircuitBreakers
	cb := &s.CircuitBreakers
	cb.MaxConnections = cmp.Or(cb.MaxConnections, d.MaxConnections)
	cb.MaxPendingRequests = cmp.Or(cb.MaxPendingRequests, d.MaxPendingRequests)
	cb.MaxRequests = cmp.Or(cb.MaxRequests, d.MaxRequests)
	cb.MaxRetries = cmp.Or(cb.MaxRetries, d.MaxRetries)
	cb.PerHostMaxConnections = cmp.Or(cb.PerHostMaxConnections, d.PerHostMaxConnections)
	return s
}
