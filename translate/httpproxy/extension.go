package httpproxy

import (
	contourv1alpha1 "github.com/projectcontour/contour/apis/projectcontour/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/contourc/contourc/translate/config"
	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/dag/index"
	"github.com/contourc/contourc/translate/internal/status"
)

// The ExtensionService processor: each valid ExtensionService becomes an
// Envoy cluster "extension/<ns>/<name>" whose endpoints are the Services it
// lists, one weighted locality each. An ExtensionService with any error
// produces no cluster.

// ExtensionProcessor is the ExtensionService processor of one
// translation: Run checks the ExtensionServices of Index into Status and
// Clusters.
type ExtensionProcessor struct {
	Index    *index.Index
	Settings *config.Settings // nil: Contour's defaults
	Status   status.Map
	// Clusters are the valid extensions, by namespace/name.
	Clusters map[types.NamespacedName]*dag.ExtensionCluster
}

// Run builds the cluster of each valid ExtensionService and the status of
// every one.
func (p *ExtensionProcessor) Run() {
	p.Clusters = map[types.NamespacedName]*dag.ExtensionCluster{}
	for _, ext := range p.Index.Extensions {
		key := index.NamespacedName(ext)
		st := &status.Proxy{Generation: ext.Generation}
		p.Status[status.Key{Kind: "ExtensionService", Name: key}] = st
		if c := p.build(ext, st); c != nil && st.Valid() {
			p.Clusters[key] = c
		}
	}
}

func (p *ExtensionProcessor) build(ext *contourv1alpha1.ExtensionService, st *status.Proxy) *dag.ExtensionCluster {
	out := &dag.ExtensionCluster{Namespace: ext.Namespace, Name: ext.Name, Protocol: "h2"}
	if tp := ext.Spec.TimeoutPolicy; tp != nil {
		response, errResp := dag.ParseTimeout(tp.Response)
		_, errIdle := dag.ParseTimeout(tp.Idle)
		idleConn, errConn := dag.ParseTimeout(tp.IdleConnection)
		switch {
		case errResp != nil:
			st.AddError("SpecError", "TimeoutPolicyNotValid", "spec.timeoutPolicy failed to parse: error parsing response timeout: %s", errResp)
		case errIdle != nil:
			st.AddError("SpecError", "TimeoutPolicyNotValid", "spec.timeoutPolicy failed to parse: error parsing idle timeout: %s", errIdle)
		case errConn != nil:
			st.AddError("SpecError", "TimeoutPolicyNotValid", "spec.timeoutPolicy failed to parse: error parsing idle connection timeout: %s", errConn)
		default:
			out.ResponseTimeout, out.IdleConnection = response, idleConn
		}
	}
	if p.Settings != nil && p.Settings.ClientCertificate != nil {
		sec, err := p.Index.ClientCertificate()
		if err != nil {
			st.AddError("TLSError", "SecretNotValid", "tls.envoy-client-certificate Secret %q is invalid: %s", p.Settings.ClientCertificate, err)
		}
		out.ClientCertificate = sec
	}
	if s := p.Settings; s != nil && s.CircuitBreakers != nil {
		out.CircuitBreakers = *s.CircuitBreakers
	}
	if cb := ext.Spec.CircuitBreakerPolicy; cb != nil {
		out.CircuitBreakers = dag.CircuitBreakers{
			MaxConnections: cb.MaxConnections, MaxPendingRequests: cb.MaxPendingRequests, MaxRequests: cb.MaxRequests,
			MaxRetries: cb.MaxRetries, PerHostMaxConnections: cb.PerHostMaxConnections,
		}
	}
	if lb := ext.Spec.LoadBalancerPolicy; lb != nil {
		switch lb.Strategy {
		case "WeightedLeastRequest", "Random":
			out.LoadBalancerPolicy = lb.Strategy
		case "Cookie", "RequestHash":
			st.AddWarning("SpecError", "IgnoredField", "ignoring field %q; %s load balancer policy is not supported for ExtensionClusters", ".Spec.LoadBalancerPolicy", lb.Strategy)
		}
	}
	if tp := ext.Spec.TimeoutPolicy; tp != nil && tp.Idle != "" {
		st.AddWarning("SpecError", "IgnoredField", "ignoring field %q; idle timeouts are not supported for ExtensionClusters", ".Spec.TimeoutPolicy.Idle")
	}
	if ext.Spec.Protocol != nil && *ext.Spec.Protocol != "" {
		out.Protocol = *ext.Spec.Protocol
	}
	if uv := ext.Spec.UpstreamValidation; uv != nil {
		v, err := upstreamValidation(p.Index, uv, ext.Namespace)
		if e, denied := err.(index.DelegationNotPermittedError); denied {
			st.AddError("TLSError", "CACertificateNotDelegated", "service.UpstreamValidation.CACertificate Secret %q is not configured for certificate delegation", e.Secret.String())
			return nil
		} else if err != nil {
			st.AddError("SpecError", "TLSUpstreamValidation", "TLS upstream validation policy error: %s", err)
			return nil
		}
		// The name to validate is also the SNI sent.
		out.Validation, out.SNI = v, v.SubjectNames[0]
		if out.Protocol != "h2" {
			st.AddError("SpecError", "InconsistentProtocol", "upstream TLS validation not supported for %q protocol", out.Protocol)
		}
	}
	for _, target := range ext.Spec.Services {
		// Only Services in the extension's own namespace can be targets.
		name := types.NamespacedName{Namespace: ext.Namespace, Name: target.Name}
		svc, port, err := p.Index.LookupService(name, intstr.FromInt(target.Port))
		if err != nil {
			st.AddError("ServiceError", "ServiceUnresolvedReference", "unresolved service %q: %s", name, err)
			continue
		}
		if svc.Spec.ExternalName != "" {
			st.AddError("ServiceError", "UnsupportedServiceType", "Service %q is of unsupported type %q.", name, corev1.ServiceTypeExternalName)
			continue
		}
		out.Targets = append(out.Targets, dag.ExtensionTarget{
			Service: &dag.Service{Namespace: svc.Namespace, Name: svc.Name, Port: port, HealthPort: port},
			Weight:  target.Weight,
		})
	}
	return out
}

// extensionTimeout is the gRPC timeout filters calling an extension use
// when they set none: the extension's response timeout.
func extensionTimeout(e *dag.ExtensionCluster, own dag.Timeout) dag.Timeout {
	if own.Set {
		return own
	}
	return e.ResponseTimeout
}
