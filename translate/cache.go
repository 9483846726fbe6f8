package translate

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	contourv1alpha1 "github.com/projectcontour/contour/apis/projectcontour/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/config"
	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/dag/index"
)

// cache indexes the loaded objects the processors look up, the way Contour's
// KubernetesCache does, including its admission filters (ingress class).
type cache struct {
	services    map[types.NamespacedName]*corev1.Service
	secrets     map[types.NamespacedName]*corev1.Secret
	slices      map[types.NamespacedName][]*discoveryv1.EndpointSlice // by Service
	delegations map[string][]*contourv1.TLSCertificateDelegation      // by namespace
	ingresses   []*networkingv1.Ingress                               // ordered by namespace/name
	httpproxies []*contourv1.HTTPProxy                                // ordered by namespace/name
	extensions  []*contourv1alpha1.ExtensionService                   // ordered by namespace/name
	sources     map[objectKey]loader.Source
	classNames  []string

	httpproxyByName map[types.NamespacedName]*contourv1.HTTPProxy
	// httpproxyExt are the HTTPProxies' fields that the published API
	// module lacks (localJWKS, serviceType, httpSettings), by name.
	httpproxyExt map[types.NamespacedName]*loader.Extensions

	// Gateway API
	gateways           map[types.NamespacedName]*gatewayv1.Gateway
	gatewayClasses     map[string]*gatewayv1.GatewayClass
	httpRoutes         []*gatewayv1.HTTPRoute
	grpcRoutes         []*gatewayv1.GRPCRoute
	tlsRoutes          []*gatewayv1.TLSRoute
	tcpRoutes          []*gatewayv1.TCPRoute
	referenceGrants    []*gatewayv1.ReferenceGrant
	backendTLSPolicies []*gatewayv1.BackendTLSPolicy
	namespaces         map[string]*corev1.Namespace
	configMaps         map[types.NamespacedName]*corev1.ConfigMap
	secretChecks       secretChecks
	memo               *Memo // nil when the caller keeps none
	verdicts           *secretVerdicts

	// settings are the configuration's (nil: Contour's defaults).
	settings *config.Settings
	// routedWithoutEndpoints is set when a lookup found a Service port
	// of a Service without EndpointSlices: only then can a cluster lack
	// endpoints. The cluster's default/kubernetes, in every translation
	// and seldom routed to, made check walk every cluster for nothing.
	routedWithoutEndpoints atomic.Bool
}

type objectKey struct {
	kind string
	name types.NamespacedName
}

func newCache(objs []loader.Object, opts Options) *cache {
	// Maps sized up front: growing them one rehash at a time was most of
	// building the cache for 20,000 objects.
	n := kindCounts(objs)
	c := &cache{
		services:        make(map[types.NamespacedName]*corev1.Service, n.services),
		secrets:         make(map[types.NamespacedName]*corev1.Secret, n.secrets),
		slices:          make(map[types.NamespacedName][]*discoveryv1.EndpointSlice, n.slices),
		delegations:     map[string][]*contourv1.TLSCertificateDelegation{},
		httpproxyByName: make(map[types.NamespacedName]*contourv1.HTTPProxy, n.httpproxies),
		httpproxyExt:    map[types.NamespacedName]*loader.Extensions{},
		gateways:        map[types.NamespacedName]*gatewayv1.Gateway{},
		gatewayClasses:  map[string]*gatewayv1.GatewayClass{},
		namespaces:      map[string]*corev1.Namespace{},
		configMaps:      map[types.NamespacedName]*corev1.ConfigMap{},
		classNames:      opts.IngressClassNames,
	}
	visible := visibleFilter(opts)
	// The sources, by far the biggest index, on the other CPU.
	var wg sync.WaitGroup
	wg.Go(func() {
		c.sources = make(map[objectKey]loader.Source, len(objs))
		for _, o := range objs {
			if visible(o) {
				c.sources[objectKey{o.Kind, types.NamespacedName{Namespace: o.Obj.GetNamespace(), Name: o.Obj.GetName()}}] = o.Source
			}
		}
	})
	for _, o := range objs {
		if visible(o) {
			c.insert(o)
		}
	}
	wg.Wait()
	sortByQualifiedName(c.ingresses)
	sortByQualifiedName(c.httpproxies)
	sortByQualifiedName(c.extensions)
	for _, s := range c.slices {
		sort.Slice(s, func(i, j int) bool { return s[i].Name < s[j].Name })
	}
	return c
}

// counts are how many objects of the most numerous kinds there are.
type counts struct{ services, secrets, slices, httpproxies int }

func kindCounts(objs []loader.Object) counts {
	var n counts
	for _, o := range objs {
		switch o.Obj.(type) {
		case *corev1.Service:
			n.services++
		case *corev1.Secret:
			n.secrets++
		case *discoveryv1.EndpointSlice:
			n.slices++
		case *contourv1.HTTPProxy:
			n.httpproxies++
		}
	}
	return n
}

// sortByQualifiedName sorts objects by "namespace/name", Contour's order.
func sortByQualifiedName[T metav1.Object](objs []T) {
	sort.Slice(objs, func(i, j int) bool {
		return index.LessQualified(objs[i].GetNamespace(), objs[i].GetName(), objs[j].GetNamespace(), objs[j].GetName())
	})
}

// visibleFilter says which objects the cache indexes: all but the Secrets
// of namespaces Contour does not watch (secretNamespaces).
func visibleFilter(opts Options) func(loader.Object) bool {
	namespaces := secretNamespaces(opts)
	if namespaces == nil {
		return func(loader.Object) bool { return true }
	}
	return func(o loader.Object) bool {
		_, isSecret := o.Obj.(*corev1.Secret)
		return !isSecret || slices.Contains(namespaces, o.Obj.GetNamespace())
	}
}

// secretNamespaces are the namespaces whose Secrets Contour sees, sorted,
// nil for all. With root namespaces its Secret informer watches only
// those, plus the namespaces of the configured fallback and client
// certificates.
func secretNamespaces(opts Options) []string {
	if len(opts.RootNamespaces) == 0 {
		return nil
	}
	watched := slices.Clone(opts.RootNamespaces)
	if cfg := opts.Config; cfg != nil {
		for _, ref := range []loader.ConfigNamespacedName{cfg.TLS.FallbackCertificate, cfg.TLS.ClientCertificate} {
			if ref.Name != "" {
				watched = append(watched, ref.Namespace)
			}
		}
	}
	slices.Sort(watched)
	return slices.Compact(watched)
}

func (c *cache) insert(o loader.Object) {
	switch obj := o.Obj.(type) {
	case *corev1.Service:
		c.services[namespacedName(obj)] = obj
	case *corev1.Secret:
		c.secrets[namespacedName(obj)] = obj
	case *discoveryv1.EndpointSlice:
		svc := obj.Labels[discoveryv1.LabelServiceName]
		if svc != "" {
			key := types.NamespacedName{Namespace: obj.Namespace, Name: svc}
			c.slices[key] = append(c.slices[key], obj)
		}
	case *contourv1.TLSCertificateDelegation:
		c.delegations[obj.Namespace] = append(c.delegations[obj.Namespace], obj)
	case *contourv1.HTTPProxy:
		if matchesIngressClass(httpProxyClassOf(obj), c.classNames) {
			c.httpproxies = append(c.httpproxies, obj)
			c.httpproxyByName[namespacedName(obj)] = obj
			if o.Extensions != nil {
				c.httpproxyExt[namespacedName(obj)] = o.Extensions
			}
		}
	case *contourv1alpha1.ExtensionService:
		c.extensions = append(c.extensions, obj)
	case *gatewayv1.Gateway:
		c.gateways[namespacedName(obj)] = obj
	case *gatewayv1.GatewayClass:
		c.gatewayClasses[obj.Name] = obj
	case *gatewayv1.HTTPRoute:
		c.httpRoutes = append(c.httpRoutes, obj)
	case *gatewayv1.GRPCRoute:
		c.grpcRoutes = append(c.grpcRoutes, obj)
	case *gatewayv1.TLSRoute:
		c.tlsRoutes = append(c.tlsRoutes, obj)
	case *gatewayv1.TCPRoute:
		c.tcpRoutes = append(c.tcpRoutes, obj)
	case *gatewayv1.ReferenceGrant:
		c.referenceGrants = append(c.referenceGrants, obj)
	case *gatewayv1.BackendTLSPolicy:
		c.backendTLSPolicies = append(c.backendTLSPolicies, obj)
	case *corev1.Namespace:
		c.namespaces[obj.Name] = obj
	case *corev1.ConfigMap:
		c.configMaps[namespacedName(obj)] = obj
	case *networkingv1.Ingress:
		if matchesIngressClass(ingressClassOf(obj), c.classNames) {
			c.ingresses = append(c.ingresses, obj)
		}
	}
}

// httpProxyExtensions returns the extension fields of an HTTPProxy, nil
// when it has none (its accessors accept nil).
func (c *cache) httpProxyExtensions(proxy *contourv1.HTTPProxy) *loader.Extensions {
	return c.httpproxyExt[namespacedName(proxy)]
}

// source returns where an object came from.
func (c *cache) source(kind string, name types.NamespacedName) loader.Source {
	return c.sources[objectKey{kind, name}]
}

type namespacedObject interface {
	GetNamespace() string
	GetName() string
}

func namespacedName(o namespacedObject) types.NamespacedName {
	return types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}
}

// lookupService finds a Service and the port matching port (by number or
// name); only TCP ports can be routed to.
func (c *cache) lookupService(name types.NamespacedName, port intstr.IntOrString) (*corev1.Service, corev1.ServicePort, error) {
	svc, ok := c.services[name]
	if !ok {
		return nil, corev1.ServicePort{}, fmt.Errorf("service %q not found", name)
	}
	for _, p := range svc.Spec.Ports {
		if (port.Type == intstr.Int && int(p.Port) == port.IntValue()) || (port.Type == intstr.String && port.StrVal == p.Name) {
			if p.Protocol != "" && p.Protocol != corev1.ProtocolTCP {
				return nil, corev1.ServicePort{}, fmt.Errorf("unsupported service protocol %q", p.Protocol)
			}
			if len(c.slices[name]) == 0 {
				c.routedWithoutEndpoints.Store(true)
			}
			return svc, p, nil
		}
	}
	return nil, corev1.ServicePort{}, fmt.Errorf("port %q on service %q not matched", port.String(), name)
}

// delegationPermitted says whether objects in targetNamespace may use the
// Secret secret through a TLSCertificateDelegation in the secret's namespace.
func (c *cache) delegationPermitted(secret types.NamespacedName, targetNamespace string) bool {
	if secret.Namespace == targetNamespace {
		return true
	}
	for _, d := range c.delegations[secret.Namespace] {
		for _, del := range d.Spec.Delegations {
			if del.SecretName != secret.Name {
				continue
			}
			if slices.Equal(del.TargetNamespaces, []string{"*"}) || slices.Contains(del.TargetNamespaces, targetNamespace) {
				return true
			}
		}
	}
	return false
}

// errDelegationNotPermitted is returned when a secret exists but is not
// delegated to the namespace that references it.
type errDelegationNotPermitted struct{ secret types.NamespacedName }

func (e errDelegationNotPermitted) Error() string {
	return "certificate delegation not permitted"
}

// lookupSecret returns the Secret name refers to, as seen from
// fromNamespace, after validate accepts it. Like Contour, delegation is
// checked before the Secret's existence.
func (c *cache) lookupSecret(name types.NamespacedName, fromNamespace string, validate func(*corev1.Secret) error) (*corev1.Secret, error) {
	if !c.delegationPermitted(name, fromNamespace) {
		return nil, errDelegationNotPermitted{name}
	}
	s, ok := c.secrets[name]
	if !ok {
		return nil, errors.New("Secret not found")
	}
	if err := c.checkSecret(s, name, validate); err != nil {
		return nil, err
	}
	return s, nil
}

// lookupTLSSecret returns the validated serving certificate name refers to,
// as seen from fromNamespace.
func (c *cache) lookupTLSSecret(name types.NamespacedName, fromNamespace string) (*dag.Secret, error) {
	s, err := c.lookupSecret(name, fromNamespace, index.ValidTLSSecret)
	if err != nil {
		return nil, err
	}
	return &dag.Secret{Namespace: s.Namespace, Name: s.Name, Cert: s.Data[corev1.TLSCertKey], Key: s.Data[corev1.TLSPrivateKeyKey]}, nil
}

// lookupCASecret returns a validated CA bundle (ca.crt).
func (c *cache) lookupCASecret(name types.NamespacedName, fromNamespace string) ([]byte, error) {
	s, err := c.lookupSecret(name, fromNamespace, validCASecret)
	if err != nil {
		return nil, err
	}
	return s.Data[caCertificateKey], nil
}

// lookupCRLSecret returns a validated certificate revocation list (crl.pem).
func (c *cache) lookupCRLSecret(name types.NamespacedName, fromNamespace string) ([]byte, error) {
	s, err := c.lookupSecret(name, fromNamespace, validCRLSecret)
	if err != nil {
		return nil, err
	}
	return s.Data[crlKey], nil
}

// lookupJWKS returns the validated JWKS document in key of Secret name.
// Unlike the other lookups there is no delegation: a local JWKS is always
// read from the referring proxy's own namespace. The result is not kept,
// as its validity depends on the key and checking it is cheap.
func (c *cache) lookupJWKS(name types.NamespacedName, key string) ([]byte, error) {
	s, ok := c.secrets[name]
	if !ok {
		return nil, errors.New("Secret not found")
	}
	if err := index.ValidJWKSSecret(s, key); err != nil {
		return nil, err
	}
	return s.Data[key], nil
}
