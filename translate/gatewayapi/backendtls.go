package gatewayapi

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/dag/index"
	"github.com/contourc/contourc/translate/internal/status"
)

// BackendTLSPolicy: TLS to an HTTPRoute backend, verified against CA
// certificates from Secrets or ConfigMaps and the policy's hostname. The
// policy's status is written per route parentRef (its "ancestors").

// backendTLSPolicy finds the policy for a Service port: one naming the
// port (sectionName) wins over one naming the whole Service.
func (p *Processor) backendTLSPolicy(svc *dag.Service) *gatewayv1.BackendTLSPolicy {
	var fallback *gatewayv1.BackendTLSPolicy
	for _, pol := range p.Index.BackendTLSPolicies {
		if pol.Namespace != svc.Namespace {
			continue
		}
		for _, tr := range pol.Spec.TargetRefs {
			if tr.Group != "" || tr.Kind != "Service" || string(tr.Name) != svc.Name {
				continue
			}
			if tr.SectionName != nil && string(*tr.SectionName) == svc.Port.Name {
				return pol
			}
			if tr.SectionName == nil {
				fallback = pol
			}
		}
	}
	return fallback
}

// backendTLS applies the BackendTLSPolicy of a backend, if any, to its
// cluster: the cluster speaks TLS with Contour's parameters and verifies
// the backend. An invalid policy is reported on the policy and ignored.
func (p *Processor) backendTLS(c *dag.Cluster, ref gatewayv1.ParentReference) {
	if len(p.Index.BackendTLSPolicies) == 0 {
		return // without reading c, made on another CPU
	}
	pol := p.backendTLSPolicy(c.Upstream)
	if pol == nil {
		return
	}
	// Contour writes a policy's status afresh for every backend it applies
	// to, so the last backend's ancestor is the one that remains.
	ancestor := p.Status.resetPolicy(index.NamespacedName(pol), pol.Generation, p.controller).parent(ref)
	invalid := func(msg string) { ancestor.add("Accepted", "False", "Invalid", msg) }
	v := pol.Spec.Validation
	if v.WellKnownCACertificates != nil && *v.WellKnownCACertificates != "" {
		invalid("BackendTLSPolicy.Spec.Validation.WellKnownCACertificates is unsupported.")
		return
	}
	host := string(v.Hostname)
	if err := validHostname(host); err != nil || strings.Contains(host, "*") {
		invalid(fmt.Sprintf("BackendTLSPolicy.Spec.Validation.Hostname %q is invalid. Hostname must be a valid RFC 1123 fully qualified domain name. Wildcard domains and numeric IP addresses are not allowed", host))
		return
	}
	var names []string
	var bundle []byte
	ok := true
	for _, ref := range v.CACertificateRefs {
		name := types.NamespacedName{Namespace: pol.Namespace, Name: string(ref.Name)}
		switch ref.Kind {
		case "Secret":
			ca, err := p.Index.LookupCASecret(name, pol.Namespace)
			if err != nil {
				invalid(fmt.Sprintf("Could not find CACertificateRef Secret: %s", name))
				ok = false
				continue
			}
			bundle = append(bundle, ca...)
		case "ConfigMap":
			ca, err := p.Index.ConfigMapCA(name)
			if err != nil {
				invalid(fmt.Sprintf("Could not find CACertificateRef ConfigMap: %s", name))
				ok = false
				continue
			}
			bundle = append(bundle, ca...)
		default:
			invalid(fmt.Sprintf("BackendTLSPolicy.Spec.Validation.CACertificateRef.Kind %q is unsupported. Only ConfigMap or Secret Kind is supported.", ref.Kind))
			ok = false
			continue
		}
		names = append(names, name.Name)
	}
	if !ok || len(names) == 0 {
		return
	}
	c.Protocol = "tls"
	c.Upstream.Protocol = "tls"
	c.OmitTLSParams = false
	c.Validation = &dag.UpstreamValidation{CAName: names[0], CACert: bundle, SubjectNames: []string{host}}
	ancestor.add("Accepted", "True", "Accepted", "Accepted BackendTLSPolicy")
}

// policyStatuses lists the BackendTLSPolicy statuses, ordered by name.
func (gs *Statuses) policyStatuses(c *index.Index) []status.ObjectStatus {
	var names []types.NamespacedName
	for n, s := range gs.policies {
		if len(s.parents) > 0 {
			names = append(names, n)
		}
	}
	sort.Slice(names, func(i, j int) bool { return names[i].String() < names[j].String() })
	var out []status.ObjectStatus
	for _, n := range names {
		var ancestors []*status.PolicyAncestorStatus
		for _, p := range gs.policies[n].parents {
			ancestors = append(ancestors, &status.PolicyAncestorStatus{AncestorRef: p.ParentRef, ControllerName: p.ControllerName, Conditions: p.Conditions})
		}
		out = append(out, status.ObjectStatus{
			APIVersion: watchedAPIVersion("BackendTLSPolicy"), Kind: "BackendTLSPolicy", Namespace: n.Namespace, Name: n.Name,
			Status: status.PolicyStatus{Ancestors: ancestors}, Source: c.Source("BackendTLSPolicy", n),
		})
	}
	return out
}
